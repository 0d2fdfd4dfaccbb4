//! Buffer types, as arguments and returns: which of the buffer kinds a type and its marker
//! (`#[buffer]`, `#[arraybuffer]`, `#[anybuffer]`, each bare, `(copy)` or `(detach)`) make.

use syn::Type;

use super::{path_name, shape, type_text, Shape};
use crate::internals::attr::{BufferMarker, BufferMode, Markers};
use crate::ir::{ArgKind, BufferSource, ElementType, PtrTarget, RetKind};

/// The buffer types, by shape. `elem` is `None` for bytes (`u8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BufferShape {
    /// `&[T]` / `&mut [T]`.
    Slice {
        elem: Option<ElementType>,
        mutable: bool,
    },
    /// `Vec<T>` / `Box<[T]>`.
    Owned {
        elem: Option<ElementType>,
        boxed: bool,
    },
    /// `bytes::Bytes` / `bytes::BytesMut`.
    Bytes,
    /// `*const T` / `*mut T` of `u8` (`None`) or another element type.
    Pointer {
        mutable: bool,
        elem: Option<ElementType>,
    },
    /// `JsBuffer`, or `V8Slice<T>` (`None`: bytes).
    JsBuffer { elem: Option<ElementType> },
    /// `DetachedBuffer`.
    Detached,
}

/// `u8` (`Some(None)`) or another element type (`Some(Some(..))`).
fn element(ty: &Type) -> Option<Option<ElementType>> {
    match path_name(ty)?.as_str() {
        "u8" => Some(None),
        name => ElementType::from_name(name).map(Some),
    }
}

/// The element of `[T]`.
fn slice_element(ty: &Type) -> Option<Option<ElementType>> {
    match ty {
        Type::Slice(slice) => element(&slice.elem),
        _ => None,
    }
}

/// The buffer shape of `ty`, if it has one.
pub(super) fn buffer_shape(ty: &Type) -> Option<BufferShape> {
    match shape(ty) {
        Shape::Reference {
            mutable, target, ..
        } => slice_element(target).map(|elem| BufferShape::Slice { elem, mutable }),
        Shape::Path { name, types, .. } if types.len() == 1 => match name.as_str() {
            "Vec" => element(types[0]).map(|elem| BufferShape::Owned { elem, boxed: false }),
            "Box" => slice_element(types[0]).map(|elem| BufferShape::Owned { elem, boxed: true }),
            "V8Slice" => element(types[0]).map(|elem| BufferShape::JsBuffer { elem }),
            _ => None,
        },
        Shape::Path { name, types, .. } if types.is_empty() => match name.as_str() {
            "JsBuffer" => Some(BufferShape::JsBuffer { elem: None }),
            "Bytes" | "BytesMut" => Some(BufferShape::Bytes),
            "DetachedBuffer" => Some(BufferShape::Detached),
            _ => None,
        },
        Shape::Pointer { mutable, target } => {
            element(target).map(|elem| BufferShape::Pointer { mutable, elem })
        }
        _ => None,
    }
}

fn source(marker: BufferMarker) -> BufferSource {
    match marker {
        BufferMarker::View => BufferSource::View,
        BufferMarker::ArrayBuffer => BufferSource::ArrayBuffer,
        BufferMarker::Any => BufferSource::Any,
    }
}

/// The argument kind of a buffer-shaped type with its marker, or what to write instead.
pub(super) fn buffer_arg_kind(
    ty: &Type,
    shape: BufferShape,
    markers: &Markers,
) -> Result<ArgKind, String> {
    let marker = markers
        .buffer
        .as_ref()
        .map(|(_, marker, mode)| (*marker, *mode));
    let text = type_text(ty);
    use BufferMarker::{Any, ArrayBuffer, View};
    use BufferMode::{Copy, Detach};
    Ok(match (shape, marker) {
        (BufferShape::Slice { elem: None, mutable }, Some((View, BufferMode::View))) => {
            ArgKind::Buffer { mutable }
        }
        (BufferShape::Slice { elem: None, mutable }, Some((ArrayBuffer, BufferMode::View))) => {
            ArgKind::ArrayBuffer { mutable }
        }
        (BufferShape::Slice { elem: None, mutable }, Some((Any, BufferMode::View))) => {
            ArgKind::AnyBuffer { mutable }
        }
        (BufferShape::Slice { elem: Some(elem), mutable }, Some((View, BufferMode::View))) => {
            ArgKind::Typed { elem, mutable }
        }
        (BufferShape::Slice { elem: Some(_), .. }, _) => {
            return Err(format!("`{text}` needs `#[buffer]` (a typed array of that element type)"))
        }
        (BufferShape::Slice { .. }, Some((_, Copy))) => {
            return Err(format!("a copy is owned: take `Vec<u8>` with `#[buffer(copy)]`, not `{text}`"))
        }
        (BufferShape::Slice { .. }, _) => {
            return Err(format!(
                "`{text}` needs `#[buffer]` (a view), `#[arraybuffer]` (an ArrayBuffer) or `#[anybuffer]` (either)"
            ))
        }
        (BufferShape::Owned { elem: None, .. } | BufferShape::Bytes, Some((View, Copy))) => {
            ArgKind::BufferCopy
        }
        (BufferShape::Owned { elem: None, .. } | BufferShape::Bytes, Some((ArrayBuffer, Copy))) => {
            ArgKind::ArrayBufferCopy
        }
        (BufferShape::Owned { elem: Some(elem), boxed }, Some((View, Copy))) => {
            ArgKind::TypedCopy { elem, boxed }
        }
        (BufferShape::Owned { .. } | BufferShape::Bytes, _) => {
            return Err(format!(
                "`{text}` needs `#[buffer(copy)]` (a view's bytes, copied) or, for bytes, `#[arraybuffer(copy)]`"
            ))
        }
        (BufferShape::Pointer { mutable, elem: None }, Some((View, BufferMode::View))) => {
            ArgKind::BufferPtr {
                mutable,
                target: PtrTarget::View,
            }
        }
        (BufferShape::Pointer { mutable, elem: None }, Some((ArrayBuffer, BufferMode::View))) => {
            ArgKind::BufferPtr {
                mutable,
                target: PtrTarget::ArrayBuffer,
            }
        }
        (BufferShape::Pointer { mutable, elem: Some(elem) }, Some((View, BufferMode::View))) => {
            ArgKind::BufferPtr {
                mutable,
                target: PtrTarget::Typed(elem),
            }
        }
        (BufferShape::Pointer { elem: Some(_), .. }, _) => {
            return Err(format!("`{text}` needs `#[buffer]` (a pointer to a typed array's elements)"))
        }
        (BufferShape::Pointer { .. }, _) => {
            return Err(format!(
                "`{text}` needs `#[buffer]` (a pointer to a view's bytes) or `#[arraybuffer]` (an ArrayBuffer's)"
            ))
        }
        (BufferShape::JsBuffer { elem: None }, Some((marker, BufferMode::View))) => {
            ArgKind::JsBuffer(source(marker))
        }
        (BufferShape::JsBuffer { elem: Some(elem) }, Some((View, BufferMode::View))) => {
            ArgKind::TypedJsBuffer(elem)
        }
        (BufferShape::JsBuffer { elem: Some(_) }, _) => {
            return Err(format!("`{text}` needs `#[buffer]` (a typed array of that element type)"))
        }
        (BufferShape::JsBuffer { .. }, Some((_, Detach))) => {
            return Err("detaching gives a `DetachedBuffer`: take that".into())
        }
        (BufferShape::JsBuffer { .. }, _) => {
            return Err(
                "`JsBuffer` needs `#[buffer]` (a view's memory), `#[arraybuffer]` or `#[anybuffer]`".into(),
            )
        }
        (BufferShape::Detached, Some((marker, Detach))) => ArgKind::Detached(source(marker)),
        (BufferShape::Detached, _) => {
            return Err(
                "`DetachedBuffer` needs `#[buffer(detach)]` (or `#[arraybuffer(detach)]`, `#[anybuffer(detach)]`): it takes the memory from JavaScript".into(),
            )
        }
    })
}

/// The return kind of a buffer-shaped type with its marker, or what to write instead.
pub(super) fn buffer_ret_kind(
    ty: &Type,
    shape: BufferShape,
    markers: &Markers,
) -> Result<RetKind, String> {
    let marker = markers
        .buffer
        .as_ref()
        .map(|(_, marker, mode)| (*marker, *mode));
    let text = type_text(ty);
    match (shape, marker) {
        (BufferShape::Slice { .. } | BufferShape::Pointer { .. }, _) => Err(format!(
            "an op cannot return `{text}`: return an owned `Vec<u8>` (no copy: JavaScript gets its memory)"
        )),
        (_, Some((_, BufferMode::Copy | BufferMode::Detach))) => Err(
            "a returned buffer is never copied nor detached: mark the function `#[buffer]` or `#[arraybuffer]`".into(),
        ),
        (
            BufferShape::Owned { elem: Some(_), .. } | BufferShape::JsBuffer { elem: Some(_) },
            Some((BufferMarker::ArrayBuffer | BufferMarker::Any, _)),
        ) => {
            Err(format!("`{text}` returns as a typed array: mark the function `#[buffer]`, or nothing"))
        }
        (_, Some((BufferMarker::ArrayBuffer, _))) => Ok(RetKind::ArrayBuffer),
        (_, Some((BufferMarker::Any, _))) => {
            Err("a return is one thing: mark the function `#[buffer]` or `#[arraybuffer]`".into())
        }
        (_, None | Some((BufferMarker::View, _))) => Ok(RetKind::Buffer),
    }
}
