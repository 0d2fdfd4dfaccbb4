//! TypeScript declarations from the IR (as napi-derive-backend's `typegen`): each op's method
//! signature on the ops object, with its doc comment as JSDoc. Pure functions of the IR; the
//! kind table gives each kind's type.

pub mod types;

use crate::ir::{Arg, Class, Op, Role, TsOfRustType};
pub use types::Position;

/// Words a TypeScript parameter cannot be named (Rust allows them as identifiers).
const RESERVED: &[&str] = &[
    "arguments",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "eval",
    "export",
    "extends",
    "finally",
    "function",
    "import",
    "in",
    "instanceof",
    "new",
    "null",
    "this",
    "throw",
    "try",
    "typeof",
    "var",
    "void",
    "with",
];

/// A parameter name TypeScript accepts.
fn parameter_name(name: &str) -> String {
    let name = name.trim_start_matches("r#");
    if RESERVED.contains(&name) {
        format!("{name}_")
    } else {
        name.to_owned()
    }
}

/// A type a declaration names: the declarations file declares it beside the op, class or
/// type that names it (see `runtime_core::TsType`, which `#[op]` writes from these).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedType {
    pub name: String,
    pub form: Form,
}

/// How a named type is declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// By its `FromV8` (input) or `ToV8` (output) impl's `TYPESCRIPT`.
    Value(Position),
    /// As a class (`#[cppgc]`).
    Class,
}

/// The op's declaration in the ops namespace: JSDoc, then `function name(params): ret;`.
/// Structured values are typed by their Rust types, a type of the user's by its name (see
/// [`types_named`]).
pub fn declaration(op: &Op) -> String {
    let (params, ret) = signature(op, &|_| {});
    format!("{}function {}({params}): {ret};", jsdoc(&op.docs), op.ident)
}

/// The user's types [`declaration`] names, in order, each once.
pub fn types_named(op: &Op) -> Vec<NamedType> {
    let found = std::cell::RefCell::new(Vec::new());
    signature(op, &|named| found.borrow_mut().push(named));
    distinct(found.into_inner())
}

/// The user's types a class's members name, in order, each once.
pub fn types_named_by_class(class: &Class) -> Vec<NamedType> {
    let found = std::cell::RefCell::new(Vec::new());
    for member in &class.members {
        signature(&member.op, &|named| found.borrow_mut().push(named));
    }
    distinct(found.into_inner())
}

fn distinct(found: Vec<NamedType>) -> Vec<NamedType> {
    let mut out: Vec<NamedType> = Vec::new();
    for named in found {
        if !out.contains(&named) {
            out.push(named);
        }
    }
    out
}

/// A class member's declaration (`get x(): number;`, `static f(a: string): void;`,
/// `constructor(x: number);`): `head` is what precedes the parameters.
fn class_member(op: &Op, head: &str, with_return: bool) -> String {
    let (params, ret) = signature(op, &|_| {});
    let ret = if with_return {
        format!(": {ret}")
    } else {
        String::new()
    };
    format!("{}{head}({params}){ret};", jsdoc(&op.docs))
}

/// A class's declaration (`class Foo { .. }`), as `Foo::CLASS.typescript` holds it: what
/// `cargo xtask dts` writes for an `#[op] impl`.
pub fn class_declaration(class: &Class) -> String {
    let extends = class
        .base
        .as_ref()
        .and_then(|base| match base {
            syn::Type::Path(path) => path
                .path
                .segments
                .last()
                .map(|last| format!(" extends {}", last.ident)),
            _ => None,
        })
        .unwrap_or_default();
    let mut typescript = format!("class {}{extends} {{\n", class.name);
    if !class
        .members
        .iter()
        .any(|member| member.role == Role::Constructor)
    {
        // Not constructible from JavaScript (`new` throws): instances come from ops (protected,
        // not private: another class may extend it).
        typescript.push_str("  protected constructor();\n");
    }
    for member in &class.members {
        let (op, js_name) = (&member.op, &member.js_name);
        let member_ts = match member.role {
            Role::Constructor => class_member(op, "constructor", false),
            Role::Method => class_member(op, js_name, true),
            Role::Getter => class_member(op, &format!("get {js_name}"), true),
            Role::Setter => class_member(op, &format!("set {js_name}"), false),
            Role::Static => class_member(op, &format!("static {js_name}"), true),
        };
        for line in member_ts.lines() {
            typescript.push_str(&format!("  {line}\n"));
        }
    }
    typescript.push_str("}\n");
    typescript
}

/// The doc comment as JSDoc (empty without one).
fn jsdoc(docs: &[String]) -> String {
    let mut out = String::new();
    if !docs.is_empty() {
        out.push_str("/**\n");
        for line in docs {
            let line = line.strip_prefix(' ').unwrap_or(line).replace("*/", "*\\/");
            out.push_str(&format!(
                " *{}{line}\n",
                if line.is_empty() { "" } else { " " }
            ));
        }
        out.push_str(" */\n");
    }
    out
}

/// A class instance's TypeScript type: the class's name (its `declare class`).
fn class_name(ty: &syn::Type) -> Option<String> {
    let ty = match ty {
        syn::Type::Reference(reference) => &*reference.elem,
        other => other,
    };
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    match &last.arguments {
        // `Held<T>`: `T`.
        syn::PathArguments::AngleBracketed(args) if last.ident == "Held" => {
            match args.args.first()? {
                syn::GenericArgument::Type(inner) => class_name(inner),
                _ => None,
            }
        }
        _ => Some(last.ident.to_string()),
    }
}

/// The parameter list and the return type; `on_named` is told each of the user's types they
/// name.
fn signature(op: &Op, on_named: &dyn Fn(NamedType)) -> (String, String) {
    // A generic parameter is no type of its own; `Self` is the class's (declared as such).
    let generic =
        |name: &str| name == "Self" || op.generics.type_params().any(|param| param.ident == name);
    let ts = |ty: &syn::Type, kind: Option<TsOfRustType>, position: Position| match kind {
        Some(TsOfRustType::Class) => class_name(ty).inspect(|name| {
            on_named(NamedType {
                name: name.clone(),
                form: Form::Class,
            })
        }),
        Some(TsOfRustType::Structured) => Some(types::ts_of_type(ty, position, &|name| {
            let named = !generic(name);
            if named {
                on_named(NamedType {
                    name: name.to_owned(),
                    form: Form::Value(position),
                });
            }
            named
        })),
        Some(TsOfRustType::Serde) => Some(types::ts_of_type(ty, position, &|_| false)),
        None => None,
    };
    let args: Vec<_> = op.js_args().map(|(_, arg)| arg).collect();
    // `Option`s and arguments with a default may be `undefined`: trailing ones may be left
    // out, earlier ones take `undefined`.
    let omittable = |arg: &&Arg| arg.optional || arg.webidl.default.is_some();
    let required = args
        .iter()
        .rposition(|arg| !omittable(arg))
        .map_or(0, |last| last + 1);
    let params: Vec<String> = args
        .iter()
        .enumerate()
        .map(|(index, arg)| {
            let name = parameter_name(&arg.ident.to_string());
            let ty = ts(&arg.ty, arg.kind.ts_of_rust_type(), Position::Input)
                .unwrap_or_else(|| arg.kind.ts());
            let null = if arg.optional { " | null" } else { "" };
            match (omittable(arg), index < required) {
                (false, _) => format!("{name}: {ty}"),
                (true, true) => format!("{name}: {ty}{null} | undefined"),
                (true, false) => format!("{name}?: {ty}{null}"),
            }
        })
        .collect();
    let mut ret = match (op.ret.kind.ts_of_rust_type(), &op.ret.ty) {
        (Some(TsOfRustType::Class), Some(ty)) => {
            ts(ty, Some(TsOfRustType::Class), Position::Output).unwrap_or_else(|| "object".into())
        }
        (kind @ Some(_), Some(ty)) => ts(ty, kind, Position::Output).unwrap_or_default(),
        _ => op.ret.kind.ts(op.ret.element, op.ret.handle),
    };
    if op.ret.optional {
        ret = format!("{ret} | null");
    }
    if op.async_op.is_some() {
        ret = format!("Promise<{ret}>");
    }
    (params.join(", "), ret)
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::declaration;

    fn declare(item: proc_macro2::TokenStream) -> String {
        let item_fn: syn::ItemFn = syn::parse2(item).unwrap();
        let op = crate::parse_op(quote!(), &item_fn).unwrap_or_else(|errors| panic!("{errors:?}"));
        declaration(&op)
    }

    #[test]
    fn signatures_follow_the_kind_table() {
        assert_eq!(
            declare(quote! {
                /// Adds.
                ///
                /// Wraps on overflow.
                fn op_add(a: u32, #[bigint] b: u64, state: &OpState) -> u32 { 0 }
            }),
            "/**\n * Adds.\n *\n * Wraps on overflow.\n */\nfunction op_add(a: number, b: bigint): number;"
        );
        assert_eq!(
            declare(quote! {
                async fn op_read(#[buffer] new: JsBuffer, limit: Option<u32>, #[string] tag: Option<String>) -> Option<Vec<u16>> { None }
            }),
            "function op_read(new_: ArrayBufferView, limit?: number | null, tag?: string | null): Promise<Uint16Array | null>;"
        );
        assert_eq!(
            declare(quote! {
                fn op_first(x: Option<u32>, y: f64) -> Result<v8::Local<'static, v8::Function>, OpError> { todo!() }
            }),
            "function op_first(x: number | null | undefined, y: number): Function;"
        );
    }
}
