//! The runtime functions the strategies call by name, as types: the IR names a variant, and
//! only [`SlowHelper::name`] and [`FastHelper::name`] spell the function. Each is the checked
//! conversion of one argument kind in `runtime_core::__op`; the every-kind test compiles a
//! call of each (a test here checks the kind table reaches every variant).

/// Declares a helper enum: each variant with the function it names, `ALL`, and `name()`.
macro_rules! helpers {
    ($(#[$doc:meta])* $enum:ident { $($variant:ident => $function:literal,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $enum {
            $(#[doc = concat!("`", $function, "`.")] $variant,)*
        }

        impl $enum {
            /// Every helper.
            pub const ALL: &'static [$enum] = &[$($enum::$variant),*];

            /// The function's name.
            pub fn name(self) -> &'static str {
                match self {
                    $($enum::$variant => $function,)*
                }
            }
        }
    };
}

helpers! {
    /// The `runtime_core::__op::SlowCall` methods of the slow path's named strategies.
    SlowHelper {
        Str => "arg_str",
        StrCopied => "arg_str_copied",
        CowStr => "arg_cow_str",
        CowStrCopied => "arg_cow_str_copied",
        String => "arg_string",
        OneByte => "arg_onebyte",
        OneByteCopied => "arg_onebyte_copied",
        ByteString => "arg_bytestring",
        Buffer => "arg_buffer",
        BufferMut => "arg_buffer_mut",
        BufferCopy => "arg_buffer_copy",
        Typed => "arg_typed",
        TypedMut => "arg_typed_mut",
        TypedVec => "arg_typed_vec",
        TypedBox => "arg_typed_box",
        ArrayBuffer => "arg_arraybuffer",
        ArrayBufferMut => "arg_arraybuffer_mut",
        AnyBuffer => "arg_anybuffer",
        AnyBufferMut => "arg_anybuffer_mut",
        ArrayBufferCopy => "arg_arraybuffer_copy",
        BufferPtrConst => "arg_buffer_ptr_const",
        BufferPtr => "arg_buffer_ptr",
        ArrayBufferPtrConst => "arg_arraybuffer_ptr_const",
        ArrayBufferPtr => "arg_arraybuffer_ptr",
        TypedPtrConst => "arg_typed_ptr_const",
        TypedPtr => "arg_typed_ptr",
        JsBuffer => "arg_js_buffer",
        TypedJsBuffer => "arg_typed_js_buffer",
        Detached => "arg_detached",
        External => "arg_external",
        ExternalMut => "arg_external_mut",
    }
}

helpers! {
    /// The `runtime_core::__op` functions of the fast path's named strategies.
    FastHelper {
        Str => "fast_str",
        CowStr => "fast_cow_str",
        String => "fast_string",
        OneByte => "fast_onebyte",
        ByteString => "fast_bytestring",
        Buffer => "fast_buffer",
        BufferMut => "fast_buffer_mut",
        BufferCopy => "fast_buffer_copy",
        Typed => "fast_typed",
        TypedMut => "fast_typed_mut",
        TypedVec => "fast_typed_vec",
        TypedBox => "fast_typed_box",
        ArrayBuffer => "fast_arraybuffer",
        ArrayBufferMut => "fast_arraybuffer_mut",
        AnyBuffer => "fast_anybuffer",
        AnyBufferMut => "fast_anybuffer_mut",
        ArrayBufferCopy => "fast_arraybuffer_copy",
        BufferPtrConst => "fast_buffer_ptr_const",
        BufferPtr => "fast_buffer_ptr",
        ArrayBufferPtrConst => "fast_arraybuffer_ptr_const",
        ArrayBufferPtr => "fast_arraybuffer_ptr",
        TypedPtrConst => "fast_typed_ptr_const",
        TypedPtr => "fast_typed_ptr",
        JsBuffer => "fast_js_buffer",
        TypedJsBuffer => "fast_typed_js_buffer",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{ArgKind, FastArg, FastConvert, SlowArg};

    /// Every helper is some kind's strategy, so the every-kind test (generated from the
    /// table's examples) compiles a call of each against runtime_core.
    #[test]
    fn the_kind_table_reaches_every_helper() {
        let mut slow = Vec::new();
        let mut fast = Vec::new();
        for kind in ArgKind::examples() {
            match kind.slow() {
                SlowArg::Convert { helper }
                | SlowArg::Lent { helper }
                | SlowArg::WithStorage { helper }
                | SlowArg::FromSource { helper, .. } => slow.push(helper),
                SlowArg::Buffered { in_place, copied } => slow.extend([in_place, copied]),
                _ => {}
            }
            if let FastArg::Param {
                convert:
                    FastConvert::Helper { name, .. }
                    | FastConvert::Checked { name }
                    | FastConvert::CheckedWithStorage { name }
                    | FastConvert::CheckedWithSource { name, .. },
                ..
            } = kind.fast()
            {
                fast.push(name);
            }
        }
        for helper in SlowHelper::ALL {
            assert!(
                slow.contains(helper),
                "no kind calls SlowCall::{}",
                helper.name()
            );
        }
        for helper in FastHelper::ALL {
            assert!(
                fast.contains(helper),
                "no kind calls __op::{}",
                helper.name()
            );
        }
    }
}
