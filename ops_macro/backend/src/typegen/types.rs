//! TypeScript for Rust types by their syntax: std types by the JavaScript form their
//! `FromV8`/`ToV8` impls give them, and `#[derive(FromV8, ToV8)]` types as the interfaces and
//! unions of their shapes (the same IR the derive emits its conversions from).

use crate::ir::container::{Body, Container, Field, Missing, Repr, Shape};

/// Which way a value goes: what JavaScript may pass (`undefined` for `None` too) or what it
/// gets (`null` for `None`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    Input,
    Output,
}

/// The TypeScript type of `ty`. A type of the user's is named when `named` says it is declared
/// (a derive the declarations include), else `unknown`.
pub fn ts_of_type(ty: &syn::Type, position: Position, named: &dyn Fn(&str) -> bool) -> String {
    match ty {
        syn::Type::Reference(reference) => ts_of_type(&reference.elem, position, named),
        syn::Type::Paren(paren) => ts_of_type(&paren.elem, position, named),
        syn::Type::Group(group) => ts_of_type(&group.elem, position, named),
        syn::Type::Slice(slice) => format!("{}[]", element(&slice.elem, position, named)),
        syn::Type::Array(array) => format!("{}[]", element(&array.elem, position, named)),
        syn::Type::Tuple(tuple) if tuple.elems.is_empty() => match position {
            Position::Input => "unknown".into(),
            Position::Output => "undefined".into(),
        },
        syn::Type::Tuple(tuple) => {
            let elements: Vec<String> = tuple
                .elems
                .iter()
                .map(|elem| ts_of_type(elem, position, named))
                .collect();
            format!("[{}]", elements.join(", "))
        }
        syn::Type::Path(path) if path.qself.is_none() => ts_of_path(&path.path, position, named),
        _ => "unknown".into(),
    }
}

/// An array element: parenthesized when it is a union.
fn element(ty: &syn::Type, position: Position, named: &dyn Fn(&str) -> bool) -> String {
    let ts = ts_of_type(ty, position, named);
    if ts.contains(" | ") {
        format!("({ts})")
    } else {
        ts
    }
}

fn generic_args(segment: &syn::PathSegment) -> Vec<&syn::Type> {
    match &segment.arguments {
        syn::PathArguments::AngleBracketed(args) => args
            .args
            .iter()
            .filter_map(|arg| match arg {
                syn::GenericArgument::Type(ty) => Some(ty),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn ts_of_path(path: &syn::Path, position: Position, named: &dyn Fn(&str) -> bool) -> String {
    let Some(last) = path.segments.last() else {
        return "unknown".into();
    };
    let args = generic_args(last);
    let name = last.ident.to_string();
    let first = |position| {
        args.first().map_or_else(
            || "unknown".to_owned(),
            |ty| ts_of_type(ty, position, named),
        )
    };
    match name.as_str() {
        "String" | "str" | "char" | "ByteString" => "string".into(),
        "Cow" => args
            .last()
            .map_or_else(|| "unknown".into(), |ty| ts_of_type(ty, position, named)),
        "bool" => "boolean".into(),
        "Bytes" => match position {
            Position::Input => "ArrayBufferView | ArrayBuffer".into(),
            Position::Output => "Uint8Array".into(),
        },
        "i8" | "i16" | "i32" | "i64" | "isize" | "u8" | "u16" | "u32" | "u64" | "usize" | "f32"
        | "f64" => "number".into(),
        "Option" => match position {
            Position::Input => format!("{} | null | undefined", first(position)),
            Position::Output => format!("{} | null", first(position)),
        },
        "Box" | "Rc" | "Arc" => first(position),
        "Vec" | "VecDeque" => match args.first() {
            Some(ty) => format!("{}[]", element(ty, position, named)),
            None => "unknown[]".into(),
        },
        "HashMap" | "BTreeMap" => {
            let value = args
                .get(1)
                .map_or_else(|| "unknown".into(), |ty| ts_of_type(ty, position, named));
            format!("Record<string, {value}>")
        }
        _ if args.is_empty() && path.segments.len() == 1 && named(&name) => name,
        _ => "unknown".into(),
    }
}

/// The declaration of a derived type (`interface Request { .. }`, `type Kind = "a" | "b";`),
/// its doc comment as JSDoc, the user's types of its fields by name (see [`types_named_by`]).
pub fn declaration(container: &Container, position: Position) -> String {
    let declaration = declaration_with(container, position, &|name| name != "Self");
    format!("{}{declaration}", super::jsdoc(&container.docs))
}

/// The user's types [`declaration`] names, in order, each once (none for a generic type: it is
/// declared `unknown`).
pub fn types_named_by(container: &Container, position: Position) -> Vec<String> {
    let found = std::cell::RefCell::new(Vec::<String>::new());
    declaration_with(container, position, &|name| {
        let named = name != "Self";
        if named && !found.borrow().iter().any(|seen| seen == name) {
            found.borrow_mut().push(name.to_owned());
        }
        named
    });
    found.into_inner()
}

fn declaration_with(
    container: &Container,
    position: Position,
    named: &dyn Fn(&str) -> bool,
) -> String {
    let name = container.ident.to_string();
    if !container.generics.params.is_empty() {
        return format!("type {name} = unknown;");
    }
    match &container.body {
        Body::Struct(Shape::Named(fields)) => {
            format!("interface {name} {}", object(fields, position, named))
        }
        Body::Struct(shape) => format!("type {name} = {};", shape_type(shape, position, named)),
        Body::Enum { repr, variants } => {
            let forms: Vec<String> = variants
                .iter()
                .map(|variant| {
                    let key = format!("{:?}", variant.key);
                    match (repr, &variant.shape) {
                        (Repr::External, Shape::Unit) => key,
                        (Repr::External, shape) => {
                            format!("{{ {key}: {} }}", shape_type(shape, position, named))
                        }
                        (Repr::Internal { tag }, Shape::Named(fields)) => {
                            let body = object(fields, position, named);
                            format!("({{ {tag:?}: {key} }} & {body})")
                        }
                        (Repr::Internal { tag }, _) => format!("{{ {tag:?}: {key} }}"),
                        (Repr::Adjacent { tag, .. }, Shape::Unit) => {
                            format!("{{ {tag:?}: {key} }}")
                        }
                        (Repr::Adjacent { tag, content }, shape) => format!(
                            "{{ {tag:?}: {key}; {content:?}: {} }}",
                            shape_type(shape, position, named)
                        ),
                        (Repr::Untagged, shape) => shape_type(shape, position, named),
                    }
                })
                .collect();
            let union = if forms.is_empty() {
                "never".to_owned()
            } else {
                forms.join(" | ")
            };
            format!("type {name} = {union};")
        }
    }
}

fn shape_type(shape: &Shape, position: Position, named: &dyn Fn(&str) -> bool) -> String {
    match shape {
        Shape::Named(fields) => object(fields, position, named),
        Shape::Newtype(field) => field_type(field, position, named),
        Shape::Tuple(fields) => {
            let elements: Vec<String> = fields
                .iter()
                .map(|field| field_type(field, position, named))
                .collect();
            format!("[{}]", elements.join(", "))
        }
        Shape::Unit => "null".into(),
    }
}

fn field_type(field: &Field, position: Position, named: &dyn Fn(&str) -> bool) -> String {
    if field.serde {
        return "unknown".into();
    }
    ts_of_type(&field.ty, position, named)
}

/// `{ key: T; other?: U; }`: a field JavaScript may leave out is optional (input: it has a
/// default or is an `Option`; output: it may be skipped).
fn object(fields: &[Field], position: Position, named: &dyn Fn(&str) -> bool) -> String {
    let members: Vec<String> = fields
        .iter()
        .map(|field| {
            let optional = match position {
                Position::Input => !matches!(field.missing, Missing::Required),
                Position::Output => field.skip_if.is_some(),
            };
            let mark = if optional { "?" } else { "" };
            let key = if is_identifier(&field.key) {
                field.key.clone()
            } else {
                format!("{:?}", field.key)
            };
            format!("{key}{mark}: {};", field_type(field, position, named))
        })
        .collect();
    if members.is_empty() {
        "{}".into()
    } else {
        format!("{{ {} }}", members.join(" "))
    }
}

fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c == '$' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c == '$' || c.is_ascii_alphanumeric())
}
