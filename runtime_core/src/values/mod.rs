//! Values between V8 and Rust, below the conversion kinds generated code uses: where strings
//! are read to and [`ByteString`](crate::ByteString) (`string_buffers.rs`, with
//! `string_view.rs` and `simdutf_raw.rs`), the buffers an op keeps (`js_buffer.rs`), values
//! made inside a callback from the isolate alone (`callback_values.rs`), the element types of
//! typed arrays (`element.rs`), and the [`FromV8`](trait@crate::FromV8) and
//! [`ToV8`](trait@crate::ToV8) traits (`v8_traits.rs`).

pub(crate) mod callback_values;
pub(crate) mod element;
pub(crate) mod js_buffer;
pub(crate) mod simdutf_raw;
pub(crate) mod string_buffers;
pub(crate) mod string_view;
pub(crate) mod ts_type;
pub(crate) mod v8_traits;
