// The contract between `#[op]`'s expansions and runtime_core, in one list that both sides
// `include!`: runtime_core defines a marker type per marker (`__op/kinds.rs`), the macro's
// backend its `Marker`, `SlowHelper` and `FastHelper` enums (`ir/contract.rs`). A new marker or
// helper is one line here (and, for a helper, its function in runtime_core, which the
// every-kind test calls). Not a module: a macro invocation, read by each side's `op_contract!`.

op_contract! {
    /// How a value crosses by a trait of the Rust type (`FromArg`, `IntoReturn`, `FromFast`,
    /// `IntoFast`): `runtime_core::__op::kind::X`.
    markers {
        /// `()`: `undefined` (what an async op without a value resolves with).
        Unit,
        /// `bool`: ECMAScript `ToBoolean` in, a boolean out.
        Bool,
        /// A Number: `i8`..`u32`, `f32`, `f64`, and with `#[number]` the 64-bit and pointer-sized
        /// integers (a `RangeError` when a returned one is outside the safe integer range).
        Number,
        /// `#[smi]`: any integer type, carried as an `i32` (wrapping), as deno's `#[smi]`.
        Smi,
        /// `#[bigint]`: the 64-bit and pointer-sized integers as BigInts.
        BigInt,
        /// A string made from Rust text (any lifetime: copied onto the V8 heap).
        String,
        /// A string made from `'static` text: ASCII is not copied (an external string).
        StaticString,
        /// `#[string(onebyte)]`: Latin-1 bytes as a one-byte string.
        OneByte,
        /// A typed array of the element type over the value's memory (`Vec<T>`, `Box<[T]>`).
        Buffer,
        /// An ArrayBuffer over the value's memory (`Vec<u8>`, `Box<[u8]>`).
        ArrayBuffer,
        /// `*const c_void` / `*mut c_void`: an External (`null` for null).
        External,
        /// A V8 handle: `v8::Local<T>`, `v8::Global<T>`.
        Handle,
        /// `#[to_v8]`: through the type's `ToV8`.
        ToV8,
        /// `#[serde]`: through the type's `serde::Serialize` (`runtime_core::serde`).
        Serde,
        /// `#[cppgc]`: an instance of the value's class (`#[op] impl`), on V8's C++ heap.
        Cppgc,
    }
    /// The `runtime_core::__op::SlowCall` methods of the slow path's named strategies.
    slow_helpers {
        Str => arg_str,
        StrCopied => arg_str_copied,
        CowStr => arg_cow_str,
        CowStrCopied => arg_cow_str_copied,
        String => arg_string,
        OneByte => arg_onebyte,
        OneByteCopied => arg_onebyte_copied,
        ByteString => arg_bytestring,
        Buffer => arg_buffer,
        BufferMut => arg_buffer_mut,
        BufferCopy => arg_buffer_copy,
        Typed => arg_typed,
        TypedMut => arg_typed_mut,
        TypedVec => arg_typed_vec,
        TypedBox => arg_typed_box,
        ArrayBuffer => arg_arraybuffer,
        ArrayBufferMut => arg_arraybuffer_mut,
        AnyBuffer => arg_anybuffer,
        AnyBufferMut => arg_anybuffer_mut,
        ArrayBufferCopy => arg_arraybuffer_copy,
        BufferPtrConst => arg_buffer_ptr_const,
        BufferPtr => arg_buffer_ptr,
        ArrayBufferPtrConst => arg_arraybuffer_ptr_const,
        ArrayBufferPtr => arg_arraybuffer_ptr,
        TypedPtrConst => arg_typed_ptr_const,
        TypedPtr => arg_typed_ptr,
        JsBuffer => arg_js_buffer,
        TypedJsBuffer => arg_typed_js_buffer,
        Detached => arg_detached,
        External => arg_external,
        ExternalMut => arg_external_mut,
    }
    /// The `runtime_core::__op` functions of the fast path's named strategies.
    fast_helpers {
        Str => fast_str,
        CowStr => fast_cow_str,
        String => fast_string,
        OneByte => fast_onebyte,
        ByteString => fast_bytestring,
        Buffer => fast_buffer,
        BufferMut => fast_buffer_mut,
        BufferCopy => fast_buffer_copy,
        Typed => fast_typed,
        TypedMut => fast_typed_mut,
        TypedVec => fast_typed_vec,
        TypedBox => fast_typed_box,
        ArrayBuffer => fast_arraybuffer,
        ArrayBufferMut => fast_arraybuffer_mut,
        AnyBuffer => fast_anybuffer,
        AnyBufferMut => fast_anybuffer_mut,
        ArrayBufferCopy => fast_arraybuffer_copy,
        BufferPtrConst => fast_buffer_ptr_const,
        BufferPtr => fast_buffer_ptr,
        ArrayBufferPtrConst => fast_arraybuffer_ptr_const,
        ArrayBufferPtr => fast_arraybuffer_ptr,
        TypedPtrConst => fast_typed_ptr_const,
        TypedPtr => fast_typed_ptr,
        JsBuffer => fast_js_buffer,
        TypedJsBuffer => fast_typed_js_buffer,
    }
}
