//! From syn types to kinds: what the user wrote (a type and its marker attributes) becomes an
//! [`ArgKind`] or a [`RetKind`], or an error at the type that says what to write instead. The
//! supported-types lists in those errors come from the kind table.

use proc_macro2::Span;
use syn::{GenericArgument, PathArguments, Type};

mod buffers;

use buffers::{buffer_arg_kind, buffer_ret_kind, buffer_shape};

use super::ast::Param;
use super::attr::{Markers, StringMode};
use crate::ir::{
    Arg, ArgKind, BigIntType, ElementType, LocalType, NumberType, Ret, RetKind, TypeAttribute,
};

/// What a type looks like, for classification: enough structure to tell the supported kinds
/// apart without caring how the user spelled the path (`Cow`, `std::borrow::Cow`, ...).
#[derive(Debug, PartialEq, Eq)]
enum Shape<'a> {
    /// A path type: its last segment's name, its type arguments, its first lifetime argument.
    Path {
        name: String,
        types: Vec<&'a Type>,
        lifetime: Option<&'a syn::Lifetime>,
    },
    /// `&T` / `&mut T`.
    Reference {
        mutable: bool,
        lifetime: Option<&'a syn::Lifetime>,
        target: &'a Type,
    },
    /// `*const T` / `*mut T`.
    Pointer { mutable: bool, target: &'a Type },
    /// Anything else.
    Other,
}

fn shape(ty: &Type) -> Shape<'_> {
    match ty {
        Type::Path(path) if path.qself.is_none() => {
            let Some(last) = path.path.segments.last() else {
                return Shape::Other;
            };
            let mut types = Vec::new();
            let mut lifetime = None;
            if let PathArguments::AngleBracketed(args) = &last.arguments {
                for arg in &args.args {
                    match arg {
                        GenericArgument::Type(ty) => types.push(ty),
                        GenericArgument::Lifetime(lt) => lifetime = lifetime.or(Some(lt)),
                        _ => {}
                    }
                }
            }
            Shape::Path {
                name: last.ident.to_string(),
                types,
                lifetime,
            }
        }
        Type::Reference(reference) => Shape::Reference {
            mutable: reference.mutability.is_some(),
            lifetime: reference.lifetime.as_ref(),
            target: &reference.elem,
        },
        Type::Ptr(pointer) => Shape::Pointer {
            mutable: pointer.mutability.is_some(),
            target: &pointer.elem,
        },
        Type::Group(group) => shape(&group.elem),
        Type::Paren(paren) => shape(&paren.elem),
        _ => Shape::Other,
    }
}

/// The name of a plain path type (`u32`, `str`, `OpState`), if `ty` is one.
fn path_name(ty: &Type) -> Option<String> {
    match shape(ty) {
        Shape::Path { name, types, .. } if types.is_empty() => Some(name),
        _ => None,
    }
}

/// Whether `ty` is `[u8]`.
fn is_byte_slice(ty: &Type) -> bool {
    matches!(ty, Type::Slice(slice) if path_name(&slice.elem).as_deref() == Some("u8"))
}

/// The single type argument of `Wrapper<T>` (`Option`, `Result`'s first), if `ty` is one.
fn unwrap_generic<'a>(ty: &'a Type, wrapper: &str) -> Option<&'a Type> {
    match shape(ty) {
        Shape::Path { name, types, .. } if name == wrapper && !types.is_empty() => Some(types[0]),
        _ => None,
    }
}

/// `v8::<T>` as a handle type, if it is one.
fn local_type(ty: &Type) -> Option<LocalType> {
    path_name(ty).as_deref().and_then(LocalType::from_name)
}

/// `v8::T` spelled with its `v8::` path (so `&String` is never taken for `&v8::String`), as a
/// handle type.
fn v8_handle_type(ty: &Type) -> Option<LocalType> {
    let Type::Path(path) = ty else { return None };
    let segments: Vec<_> = path.path.segments.iter().collect();
    match segments.as_slice() {
        [.., module, _] if module.ident == "v8" => local_type(ty),
        _ => None,
    }
}

fn is_static(lifetime: Option<&syn::Lifetime>) -> bool {
    lifetime.is_some_and(|lt| lt.ident == "static")
}

/// Each spelling once, in table order.
fn spellings(all: impl IntoIterator<Item = String>) -> String {
    let mut seen: Vec<String> = Vec::new();
    for spelling in all {
        if !seen.contains(&spelling) {
            seen.push(spelling);
        }
    }
    seen.join(", ")
}

/// Every supported argument type, as the errors (and the docs) list them.
pub fn supported_args() -> String {
    let kinds = spellings(ArgKind::examples().into_iter().map(ArgKind::spelling));
    format!("{kinds}, and Option<T> of those that come from JavaScript")
}

/// Every supported return type.
pub fn supported_rets() -> String {
    let kinds = spellings(RetKind::examples().into_iter().flat_map(RetKind::spellings));
    format!("{kinds}, and Option<T> and Result<T, E> of those")
}

fn handle_types() -> String {
    let names: Vec<&str> = LocalType::ALL.iter().map(|local| local.name()).collect();
    format!("v8::{}", names.join(", v8::"))
}

/// Whether `ty` is a named type or a tuple: what `FromV8`/`ToV8` may cover.
fn is_structured(ty: &Type) -> bool {
    match ty {
        Type::Tuple(tuple) => !tuple.elems.is_empty(),
        Type::Path(path) => path.qself.is_none(),
        Type::Group(group) => is_structured(&group.elem),
        Type::Paren(paren) => is_structured(&paren.elem),
        _ => false,
    }
}

fn unsupported_arg(ty: &Type) -> String {
    // A struct or enum of the user's own: say how to make it an argument.
    let own_type = matches!(shape(ty), Shape::Path { .. })
        .then_some(
            "; for a type of your own, `#[derive(runtime_core::FromV8)]` it (or implement \
             `runtime_core::FromV8`) and mark the argument `#[from_v8]`",
        )
        .unwrap_or("");
    format!(
        "unsupported argument type `{}`{own_type}; supported: {}",
        type_text(ty),
        supported_args()
    )
}

/// Classifies one argument, `Option<T>` included.
pub fn classify_arg(param: &Param) -> Result<Arg, syn::Error> {
    let inner = unwrap_generic(&param.ty, "Option");
    let ty = inner.unwrap_or(&param.ty);
    let kind = arg_kind(ty, &param.markers)?;
    if inner.is_some() && !kind.is_js_visible() {
        return Err(syn::Error::new_spanned(
            &param.ty,
            format!(
                "`{}` cannot be optional: it does not come from JavaScript",
                type_text(ty)
            ),
        ));
    }
    let name = param.ident.to_string();
    Ok(Arg {
        ident: param.ident.clone(),
        js_name: if name.starts_with(crate::internals::ast::UNNAMED_PREFIX) {
            String::new()
        } else {
            name
        },
        kind,
        optional: inner.is_some(),
        js_index: None, // numbered once every argument is known, in `lower_op`
        ty: ty.clone(),
        span: param.span,
        webidl: param
            .markers
            .webidl
            .as_ref()
            .map(|(_, args)| args.clone())
            .unwrap_or_default(),
    })
}

/// The kind of an integer type marked `#[smi]`, `#[number]` or `#[bigint]`, or of a plain
/// number; `None` if neither markers nor the type's name make it numeric. A marker on the
/// wrong type is an error at the marker.
fn numeric_kind(ty: &Type, markers: &Markers) -> Option<Result<ArgKind, syn::Error>> {
    let name = path_name(ty);
    let name = name.as_deref();
    let at = |attr: &syn::Attribute, message: &str| syn::Error::new_spanned(attr, message);
    if let Some(attr) = &markers.smi {
        // Any integer type, aliases included: the runtime's `SmiInt` impls decide.
        return Some(match shape(ty) {
            Shape::Path { .. } => Ok(ArgKind::Smi),
            _ => Err(at(
                attr,
                "`#[smi]` applies to integer types (or aliases of them)",
            )),
        });
    }
    if let Some(attr) = &markers.bigint {
        return Some(match name.and_then(BigIntType::from_name) {
            Some(bigint) => Ok(ArgKind::BigInt(bigint)),
            None => Err(at(
                attr,
                "`#[bigint]` applies to `i64`, `u64`, `isize` and `usize` only",
            )),
        });
    }
    let number = name.and_then(NumberType::from_name)?;
    Some(match (number.is_wide(), markers.number.is_some()) {
        (true, false) => Err(syn::Error::new_spanned(
            ty,
            format!(
                "`{}` needs `#[number]` (a Number: exact up to 2^53) or `#[bigint]` (a BigInt)",
                number.name()
            ),
        )),
        _ => Ok(ArgKind::Number(number)),
    })
}

/// Classifies an argument type (already out of any `Option`), or explains why it cannot be one.
fn arg_kind(ty: &Type, markers: &Markers) -> Result<ArgKind, syn::Error> {
    let error = |message: String| Err(syn::Error::new_spanned(ty, message));
    let string_mode = markers.string.as_ref().map(|(_, mode)| *mode);
    if markers.v8_trait.is_some() {
        return Ok(ArgKind::FromV8);
    }
    if markers.webidl.is_some() {
        return Ok(ArgKind::WebIdl);
    }
    if markers.this.is_some() || markers.cppgc.is_some() {
        if let Shape::Path { name, types, .. } = shape(ty) {
            if name == "Held" && types.len() == 1 {
                return Ok(ArgKind::Held {
                    receiver: markers.this.is_some(),
                });
            }
        }
        if !matches!(ty, Type::Reference(reference) if reference.mutability.is_none()) {
            return Err(syn::Error::new_spanned(
                ty,
                "a class instance is shared with JavaScript: take it as `&T` (mutate through `Cell`/`RefCell` fields), or `Held<T>` to keep it beyond the call",
            ));
        }
        return Ok(if markers.this.is_some() {
            ArgKind::Receiver
        } else {
            ArgKind::Cppgc
        });
    }
    if markers.serde.is_some() {
        // deno writes `#[serde] ByteString`; it is the ByteString kind, whatever the spelling.
        return Ok(match shape(ty) {
            Shape::Path { name, types, .. } if name == "ByteString" && types.is_empty() => {
                ArgKind::ByteString
            }
            _ => ArgKind::Serde,
        });
    }
    if let Some(buffer) = buffer_shape(ty) {
        let kind = buffer_arg_kind(ty, buffer, markers).or_else(error)?;
        check_arg_markers(kind, markers)?;
        return Ok(kind);
    }
    if let Some(numeric) = numeric_kind(ty, markers) {
        let kind = numeric?;
        check_arg_markers(kind, markers)?;
        return Ok(kind);
    }
    let kind = match shape(ty) {
        Shape::Path { name, types, .. } if types.is_empty() => match name.as_str() {
            "bool" => ArgKind::Bool,
            "String" if string_mode.is_some() => ArgKind::String,
            "String" => return error("`String` needs `#[string]`".to_owned()),
            "ByteString" => ArgKind::ByteString,
            "i128" | "u128" => {
                return error(format!(
                    "unsupported argument type `{}`; use a narrower type: {}",
                    type_text(ty),
                    supported_args()
                ))
            }
            // Any other type of a name: through its `FromV8` (a type without one is a compile
            // error at the type), as deno's op2 takes them without an attribute.
            _ => ArgKind::FromV8,
        },
        Shape::Path { name, types, .. } if name == "Cow" && types.len() == 1 => {
            match (path_name(types[0]).as_deref(), string_mode) {
                (Some("str"), Some(_)) => ArgKind::CowStr,
                (Some("str"), _) => return error("`Cow<str>` needs `#[string]`".to_owned()),
                (None, Some(StringMode::OneByte)) if is_byte_slice(types[0]) => ArgKind::OneByte,
                (None, _) if is_byte_slice(types[0]) => {
                    return error("`Cow<[u8]>` needs `#[string(onebyte)]`".to_owned())
                }
                _ => return error(unsupported_arg(ty)),
            }
        }
        Shape::Path { name, types, .. } if name == "Rc" && types.len() == 1 => {
            match shape(types[0]) {
                Shape::Path { name, types, .. }
                    if name == "RefCell"
                        && types.len() == 1
                        && path_name(types[0]).as_deref() == Some("OpState") =>
                {
                    ArgKind::OpStateRc
                }
                _ => return error(unsupported_arg(ty)),
            }
        }
        Shape::Path { name, types, .. }
            if (name == "Local" || name == "Global") && types.len() == 1 =>
        {
            match (local_type(types[0]), name.as_str()) {
                (Some(ty), "Local") => ArgKind::Local { ty, by_ref: false },
                (Some(ty), _) => ArgKind::Global(ty),
                (None, _) => {
                    return error(format!(
                        "unsupported `v8::{name}` type `{}`; supported: {}",
                        type_text(types[0]),
                        handle_types()
                    ))
                }
            }
        }
        Shape::Pointer { mutable, target } if path_name(target).as_deref() == Some("c_void") => {
            ArgKind::External { mutable }
        }
        Shape::Reference {
            mutable, target, ..
        } => match (path_name(target).as_deref(), mutable) {
            (Some("str"), false) if string_mode.is_some() => ArgKind::Str,
            (Some("str"), false) => return error("`&str` needs `#[string]`".to_owned()),
            (Some("OpState"), false) => ArgKind::OpStateRef,
            (Some("OpState"), true) => ArgKind::OpStateMut,
            (Some("Isolate"), _) => ArgKind::Isolate,
            (Some(_), false) if v8_handle_type(target).is_some() => ArgKind::Local {
                ty: v8_handle_type(target).expect("checked"),
                by_ref: true,
            },
            _ if matches!(shape(target), Shape::Path { ref name, .. } if name == "PinScope") => {
                ArgKind::Scope
            }
            // deno's spelling, from rusty_v8 before its pinned scopes.
            (Some(name @ ("HandleScope" | "ContextScope" | "CallbackScope")), _) => {
                return error(format!(
                    "an op takes its scope as `&mut v8::PinScope` (rusty_v8's pinned scope), \
                     not `&mut v8::{name}`: write `scope: &mut v8::PinScope`"
                ))
            }
            _ => return error(unsupported_arg(ty)),
        },
        // Other named types (`Vec<String>`, `HashMap<String, T>`...) and tuples: `FromV8`.
        Shape::Path { .. } | Shape::Other if is_structured(ty) => ArgKind::FromV8,
        _ => return error(unsupported_arg(ty)),
    };
    check_arg_markers(kind, markers)?;
    Ok(kind)
}

/// Refuses markers that do not apply to this argument kind (the kind table says which do).
fn check_arg_markers(kind: ArgKind, markers: &Markers) -> Result<(), syn::Error> {
    for (attr, attribute, written) in written_attributes(markers) {
        if kind.traits().marked_by != Some(attribute) {
            return Err(syn::Error::new_spanned(
                attr,
                attribute.misplaced_on_arg(&written),
            ));
        }
    }
    Ok(())
}

/// The type attributes written on an argument or a function, with what each is spelled as.
fn written_attributes(markers: &Markers) -> Vec<(&syn::Attribute, TypeAttribute, String)> {
    let mut written = Vec::new();
    if let Some(attr) = &markers.bigint {
        written.push((attr, TypeAttribute::BigInt, "bigint".to_owned()));
    }
    if let Some(attr) = &markers.number {
        written.push((attr, TypeAttribute::Number, "number".to_owned()));
    }
    if let Some((attr, mode)) = &markers.string {
        let attribute = match mode {
            StringMode::Utf8 => TypeAttribute::Utf8String,
            StringMode::OneByte => TypeAttribute::OneByteString,
        };
        written.push((attr, attribute, "string".to_owned()));
    }
    if let Some((attr, marker, _)) = &markers.buffer {
        written.push((attr, TypeAttribute::Buffer, marker.name().to_owned()));
    }
    written
}

/// The element type of a returned `Vec<T>`/`Box<[T]>` typed array.
fn returned_element(ty: &Type) -> Option<ElementType> {
    match shape(ty) {
        Shape::Path { name, types, .. } if types.len() == 1 && name == "Vec" => path_name(types[0])
            .as_deref()
            .and_then(ElementType::from_name),
        Shape::Path { name, types, .. } if types.len() == 1 && name == "Box" => match types[0] {
            Type::Slice(slice) => path_name(&slice.elem)
                .as_deref()
                .and_then(ElementType::from_name),
            _ => None,
        },
        _ => None,
    }
}

/// The handle type of a returned `v8::Local<T>`/`v8::Global<T>`.
fn returned_handle(ty: &Type) -> Option<LocalType> {
    match shape(ty) {
        Shape::Path { name, types, .. }
            if types.len() == 1 && (name == "Local" || name == "Global") =>
        {
            local_type(types[0])
        }
        _ => None,
    }
}

/// For `impl Future<Output = T>` and `Result<impl Future<Output = T>, E>`: whether it is the
/// `Result` (its `Err` throws during the call), and `T`.
pub fn future_output(ty: &Type) -> Option<(bool, &Type)> {
    let (fallible, ty) = match unwrap_generic(ty, "Result") {
        Some(inner) => (true, inner),
        None => (false, ty),
    };
    let Type::ImplTrait(impl_trait) = ty else {
        return None;
    };
    impl_trait.bounds.iter().find_map(|bound| {
        let syn::TypeParamBound::Trait(bound) = bound else {
            return None;
        };
        let last = bound.path.segments.last()?;
        if last.ident != "Future" {
            return None;
        }
        let PathArguments::AngleBracketed(args) = &last.arguments else {
            return None;
        };
        args.args.iter().find_map(|arg| match arg {
            GenericArgument::AssocType(assoc) if assoc.ident == "Output" => {
                Some((fallible, &assoc.ty))
            }
            _ => None,
        })
    })
}

/// Classifies `Result<Option<T>, E>`, `Option<T>` and `T` return types.
pub fn classify_ret(ty: Option<&Type>, markers: &Markers, span: Span) -> Result<Ret, syn::Error> {
    let fallible_inner = ty.and_then(|ty| unwrap_generic(ty, "Result"));
    let fallible = fallible_inner.is_some();
    let ty = fallible_inner.or(ty);
    let optional_inner = ty.and_then(|ty| unwrap_generic(ty, "Option"));
    let optional = optional_inner.is_some();
    let ty = optional_inner.or(ty);
    let (kind, borrows) = ret_kind(ty, markers)?;
    if optional && kind == RetKind::Unit {
        return Err(syn::Error::new(
            span,
            "`Option<()>` says nothing `()` does not",
        ));
    }
    Ok(Ret {
        kind,
        optional,
        fallible,
        borrows,
        element: ty.and_then(returned_element),
        handle: ty.and_then(returned_handle),
        ty: ty.cloned(),
        span,
    })
}

/// Classifies a return type (already out of any `Result` and `Option`; `None` is `()`), with
/// whether it may borrow from the arguments (a non-`'static` `&str` or `Cow`), or explains why
/// it cannot be one.
fn ret_kind(ty: Option<&Type>, markers: &Markers) -> Result<(RetKind, bool), syn::Error> {
    let Some(ty) = ty else {
        return match markers.any() {
            Some(attr) => Err(syn::Error::new_spanned(
                attr,
                "this marker applies to no return value",
            )),
            None => Ok((RetKind::Unit, false)),
        };
    };
    if matches!(ty, Type::Tuple(tuple) if tuple.elems.is_empty()) {
        return Ok((RetKind::Unit, false));
    }
    if markers.v8_trait.is_some() {
        return Ok((RetKind::ToV8, false));
    }
    if markers.serde.is_some() {
        return Ok((RetKind::Serde, false));
    }
    if markers.cppgc.is_some() {
        return Ok((RetKind::Cppgc, false));
    }
    let error = |message: String| Err(syn::Error::new_spanned(ty, message));
    let unsupported = || -> Result<(RetKind, bool), syn::Error> {
        let own_type = matches!(shape(ty), Shape::Path { .. })
            .then_some(
                "; for a type of your own, `#[derive(runtime_core::ToV8)]` it (or implement \
                 `runtime_core::ToV8`) and mark the function `#[to_v8]`",
            )
            .unwrap_or("");
        error(format!(
            "unsupported return type `{}`{own_type}; supported: {}",
            type_text(ty),
            supported_rets()
        ))
    };
    if let Some(numeric) = numeric_kind(ty, markers) {
        let kind = match numeric? {
            ArgKind::Number(number) => RetKind::Number(number),
            ArgKind::Smi => RetKind::Smi,
            ArgKind::BigInt(bigint) => RetKind::BigInt(bigint),
            _ => unreachable!("numeric_kind returns numeric kinds"),
        };
        check_ret_markers(kind, markers)?;
        return Ok((kind, false));
    }
    let onebyte = matches!(markers.string, Some((_, StringMode::OneByte)));
    if let Some(buffer) = buffer_shape(ty).filter(|_| !onebyte) {
        let kind = buffer_ret_kind(ty, buffer, markers)
            .map_err(|message| syn::Error::new_spanned(ty, message))?;
        check_ret_markers(kind, markers)?;
        return Ok((kind, false));
    }
    let (kind, borrows) = match shape(ty) {
        Shape::Path { name, types, .. } if types.is_empty() => match name.as_str() {
            "bool" => (RetKind::Bool, false),
            "String" | "ByteString" => (RetKind::String, false),
            "i128" | "u128" => return unsupported(),
            // Any other type of a name: through its `ToV8` (a type without one is a compile
            // error at the type), as deno's op2 takes them without an attribute.
            _ => (RetKind::ToV8, false),
        },
        Shape::Path {
            name,
            types,
            lifetime,
        } if name == "Cow" && types.len() == 1 => match path_name(types[0]).as_deref() {
            Some("str") if is_static(lifetime) => (RetKind::StaticString, false),
            Some("str") => (RetKind::String, true),
            None if onebyte && is_byte_slice(types[0]) => (RetKind::OneByte, true),
            _ => return unsupported(),
        },
        // `#[string(onebyte)] Vec<u8>` (other byte returns are buffers, above).
        Shape::Path { name, types, .. }
            if name == "Vec"
                && types.len() == 1
                && path_name(types[0]).as_deref() == Some("u8") =>
        {
            (RetKind::OneByte, false)
        }
        Shape::Path { name, types, .. }
            if (name == "Local" || name == "Global") && types.len() == 1 =>
        {
            // Any handle type: the runtime's `IntoReturn` impl takes whatever converts to a
            // `v8::Value`.
            match name.as_str() {
                "Local" => (RetKind::Local, false),
                _ => (RetKind::Global, false),
            }
        }
        Shape::Pointer { target, .. } if path_name(target).as_deref() == Some("c_void") => {
            (RetKind::External, false)
        }
        Shape::Reference {
            mutable: false,
            lifetime,
            target,
        } if path_name(target).as_deref() == Some("str") => {
            if is_static(lifetime) {
                (RetKind::StaticString, false)
            } else {
                (RetKind::String, true)
            }
        }
        // Other named types (`Vec<String>`, `HashMap<String, T>`...) and tuples: `ToV8`.
        Shape::Path { .. } | Shape::Other if is_structured(ty) => (RetKind::ToV8, false),
        _ => return unsupported(),
    };
    check_ret_markers(kind, markers)?;
    Ok((kind, borrows))
}

/// Refuses markers that do not apply to this return kind (the kind table says which do). The
/// function's markers describe the return value; `#[string]` and `#[buffer]` are optional
/// there (deno requires them).
fn check_ret_markers(kind: RetKind, markers: &Markers) -> Result<(), syn::Error> {
    for (attr, attribute, written) in written_attributes(markers) {
        if kind.marked_by() != Some(attribute) {
            return Err(syn::Error::new_spanned(
                attr,
                attribute.misplaced_on_ret(&written),
            ));
        }
    }
    Ok(())
}

/// The type as the user wrote it, spaced as rustfmt would for short types.
pub fn type_text(ty: &Type) -> String {
    quote::ToTokens::to_token_stream(ty)
        .to_string()
        .replace(" < ", "<")
        .replace(" >", ">")
        .replace("& ", "&")
        .replace(" :: ", "::")
        .replace("* const ", "*const ")
        .replace("* mut ", "*mut ")
}
