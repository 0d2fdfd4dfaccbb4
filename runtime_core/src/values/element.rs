//! The element types of typed arrays, one trait the buffer paths are generic over.

/// The element types of typed arrays (`u8` `i8` `u16` `i16` `u32` `i32` `u64` `i64` `f32`
/// `f64`): plain data, every bit pattern a value, each with its array type.
///
/// Sealed: the buffer paths read JavaScript's bytes as `[T]`, sound only for types whose every
/// bit pattern is a value (a `bool` would not be), so only these types may be elements.
pub trait Element: sealed::Element + Copy + Default + 'static {
    /// What a `TypeError` says was expected: `"a Uint16Array"`.
    const EXPECTED: &'static str;
    /// Whether `value` is an array of this element type.
    fn is_array(value: &v8::Value) -> bool;
    /// A backing store over the vector's memory (no copy).
    fn store_from_vec(values: Vec<Self>) -> v8::UniqueRef<v8::BackingStore>;
    /// An array of `len` elements over `buffer`, from `byte_offset`.
    fn new_array<'s>(
        scope: &v8::PinScope<'s, '_>,
        buffer: v8::Local<'_, v8::ArrayBuffer>,
        byte_offset: usize,
        len: usize,
    ) -> Option<v8::Local<'s, v8::Value>>;
}

mod sealed {
    /// Implemented only here, for the types [`super::Element`] lists.
    pub trait Element {}
}

macro_rules! elements {
    ($($ty:ty => $array:ident, $is:ident, $expected:literal;)*) => {$(
        impl sealed::Element for $ty {}

        impl Element for $ty {
            const EXPECTED: &'static str = $expected;
            #[ops_macro::inline_hot]
            fn is_array(value: &v8::Value) -> bool {
                value.$is()
            }
            #[ops_macro::inline_hot]
            fn store_from_vec(values: Vec<Self>) -> v8::UniqueRef<v8::BackingStore> {
                v8::ArrayBuffer::new_backing_store_from_bytes(values)
            }
            #[ops_macro::inline_hot]
            fn new_array<'s>(
                scope: &v8::PinScope<'s, '_>,
                buffer: v8::Local<'_, v8::ArrayBuffer>,
                byte_offset: usize,
                len: usize,
            ) -> Option<v8::Local<'s, v8::Value>> {
                v8::$array::new(scope, buffer, byte_offset, len).map(Into::into)
            }
        }
    )*};
}

elements! {
    u8 => Uint8Array, is_uint8_array, "a Uint8Array";
    i8 => Int8Array, is_int8_array, "an Int8Array";
    u16 => Uint16Array, is_uint16_array, "a Uint16Array";
    i16 => Int16Array, is_int16_array, "an Int16Array";
    u32 => Uint32Array, is_uint32_array, "a Uint32Array";
    i32 => Int32Array, is_int32_array, "an Int32Array";
    u64 => BigUint64Array, is_big_uint64_array, "a BigUint64Array";
    i64 => BigInt64Array, is_big_int64_array, "a BigInt64Array";
    f32 => Float32Array, is_float32_array, "a Float32Array";
    f64 => Float64Array, is_float64_array, "a Float64Array";
}
