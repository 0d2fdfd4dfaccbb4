//! TypeScript declarations from the IR (as napi-derive-backend's `typegen`): each op's method
//! signature on the ops object, with its doc comment as JSDoc. Pure functions of the IR; the
//! kind table gives each kind's type.

use crate::ir::Op;

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

/// The op's member of the ops object: JSDoc, then `name(params): ret;`.
pub fn declaration(op: &Op) -> String {
    let mut out = String::new();
    if !op.docs.is_empty() {
        out.push_str("/**\n");
        for line in &op.docs {
            let line = line.strip_prefix(' ').unwrap_or(line).replace("*/", "*\\/");
            out.push_str(&format!(
                " *{}{line}\n",
                if line.is_empty() { "" } else { " " }
            ));
        }
        out.push_str(" */\n");
    }
    let args: Vec<_> = op.js_args().map(|(_, arg)| arg).collect();
    // Trailing optional arguments may be left out; earlier ones take `undefined`.
    let required = args
        .iter()
        .rposition(|arg| !arg.optional)
        .map_or(0, |last| last + 1);
    let params: Vec<String> = args
        .iter()
        .enumerate()
        .map(|(index, arg)| {
            let name = parameter_name(&arg.ident.to_string());
            let ty = arg.kind.ts();
            match (arg.optional, index < required) {
                (false, _) => format!("{name}: {ty}"),
                (true, true) => format!("{name}: {ty} | null | undefined"),
                (true, false) => format!("{name}?: {ty} | null"),
            }
        })
        .collect();
    let mut ret = op.ret.kind.ts(op.ret.element, op.ret.handle);
    if op.ret.optional {
        ret = format!("{ret} | null");
    }
    if op.async_op.is_some() {
        ret = format!("Promise<{ret}>");
    }
    out.push_str(&format!("{}({}): {ret};", op.ident, params.join(", ")));
    out
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
            "/**\n * Adds.\n *\n * Wraps on overflow.\n */\nop_add(a: number, b: bigint): number;"
        );
        assert_eq!(
            declare(quote! {
                async fn op_read(#[buffer] new: JsBuffer, limit: Option<u32>, #[string] tag: Option<String>) -> Option<Vec<u16>> { None }
            }),
            "op_read(new_: ArrayBufferView, limit?: number | null, tag?: string | null): Promise<Uint16Array | null>;"
        );
        assert_eq!(
            declare(quote! {
                fn op_first(x: Option<u32>, y: f64) -> Result<v8::Local<'static, v8::Function>, OpError> { todo!() }
            }),
            "op_first(x: number | null | undefined, y: number): Function;"
        );
    }
}
