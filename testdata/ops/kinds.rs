// Buffers, ArrayBuffers, Option, V8 locals, externals, the isolate, and user types through
// FromV8/ToV8. Read by the expansion snapshots and `include!`d by runtime_core's tests.

#[op]
fn op_buffer_sum(#[buffer] bytes: &[u8]) -> u32 {
    bytes.iter().map(|&byte| u32::from(byte)).sum()
}

/// Fills the view and says how long it is: writes must reach JavaScript, on both paths.
#[op]
fn op_buffer_fill(#[buffer] bytes: &mut [u8], value: u8) -> u32 {
    bytes.fill(value);
    bytes.len() as u32
}

#[op]
fn op_buffer_copy_sum(#[buffer(copy)] bytes: Vec<u8>) -> u32 {
    bytes.iter().map(|&byte| u32::from(byte)).sum()
}

/// Keeps the copy: a `Box<[u8]>` argument is owned, safe to store.
#[op]
fn op_buffer_box_len(#[buffer(copy)] bytes: Box<[u8]>) -> u32 {
    let len = bytes.len() as u32;
    KEPT_BOX.with(|kept| kept.replace(Some(bytes)));
    len
}

thread_local! {
    static KEPT_BOX: std::cell::RefCell<Option<Box<[u8]>>> = const { std::cell::RefCell::new(None) };
}

#[op]
fn op_arraybuffer_sum(#[arraybuffer] bytes: &[u8]) -> u32 {
    bytes.iter().map(|&byte| u32::from(byte)).sum()
}

#[op]
fn op_arraybuffer_fill(#[arraybuffer] bytes: &mut [u8], value: u8) {
    bytes.fill(value);
}

/// `0, 1, 2, ...`: the vector's memory becomes the Uint8Array's, without a copy.
#[op]
fn op_bytes_vec(len: u32) -> Vec<u8> {
    (0..len).map(|i| i as u8).collect()
}

#[op]
fn op_bytes_box(len: u32) -> Box<[u8]> {
    vec![7; len as usize].into_boxed_slice()
}

#[op]
fn op_option_u32(x: Option<u32>) -> Option<u32> {
    x.map(|x| x.wrapping_add(1))
}

/// An optional number with a number result: fast, reading the value itself.
#[op]
fn op_option_i16_or_default(x: Option<i16>) -> i32 {
    x.map_or(-100_000, i32::from)
}

#[op]
fn op_option_string(#[string] s: Option<&str>) -> Option<String> {
    s.map(str::to_uppercase)
}

#[op]
fn op_option_buffer_len(#[buffer] bytes: Option<&[u8]>) -> i32 {
    bytes.map_or(-1, |bytes| bytes.len() as i32)
}

/// Any value: what kind it is, as a number (fast: `v8::Local<v8::Value>` needs no check).
#[op]
fn op_local_kind(value: v8::Local<v8::Value>) -> u32 {
    if value.is_undefined() {
        0
    } else if value.is_null() {
        1
    } else if value.is_number() {
        2
    } else if value.is_string() {
        3
    } else if value.is_function() {
        4
    } else if value.is_array() {
        5
    } else if value.is_object() {
        6
    } else {
        7
    }
}

/// A checked local: anything but an array is a `TypeError`, on both paths.
#[op]
fn op_local_array_length(array: v8::Local<v8::Array>) -> u32 {
    array.length()
}

#[op(nofast)]
fn op_local_nofast(value: v8::Local<v8::Value>) -> bool {
    value.is_true()
}

#[op]
fn op_external_identity(pointer: *mut c_void) -> *mut c_void {
    pointer
}

/// The address of a static, as an External.
#[op]
fn op_external_static() -> *const c_void {
    std::ptr::addr_of!(EXTERNAL_TARGET).cast()
}

/// The address an External holds, as a number (0 for `null`).
#[op]
fn op_external_address(pointer: *const c_void) -> f64 {
    pointer as usize as f64
}

static EXTERNAL_TARGET: u64 = 42;

/// The isolate is for ops that call into V8 (slow path only).
#[op]
fn op_isolate_data_slots(isolate: &mut v8::Isolate) -> u32 {
    isolate.get_number_of_data_slots()
}

/// A user type, `{x, y}` in JavaScript, through `FromV8` and `ToV8`.
#[op]
#[to_v8]
fn op_point_swap(#[from_v8] point: Point) -> Point {
    Point { x: point.y, y: point.x }
}

/// `{x, y}`.
pub struct Point {
    pub x: f64,
    pub y: f64,
}

impl<'s> FromV8<'s> for Point {
    fn from_v8(scope: &mut v8::PinScope<'s, '_>, value: v8::Local<'s, v8::Value>) -> Result<Self, OpError> {
        let object = v8::Local::<v8::Object>::try_from(value)
            .map_err(|_| OpError::type_error("expected an object {x, y}"))?;
        let coordinate = |name: &str| -> Result<f64, OpError> {
            let key = v8::String::new(scope, name).unwrap();
            let value = object.get(scope, key.into()).ok_or_else(|| OpError::generic("a getter threw"))?;
            v8::Local::<v8::Number>::try_from(value)
                .map(|number| number.value())
                .map_err(|_| OpError::type_error(format!("{name} must be a number")))
        };
        Ok(Point { x: coordinate("x")?, y: coordinate("y")? })
    }
}

impl ToV8 for Point {
    fn to_v8<'s>(self, scope: &mut v8::PinScope<'s, '_>) -> Result<v8::Local<'s, v8::Value>, OpError> {
        let object = v8::Object::new(scope);
        for (name, value) in [("x", self.x), ("y", self.y)] {
            let key = v8::String::new(scope, name).unwrap();
            let value = v8::Number::new(scope, value);
            object.set(scope, key.into(), value.into());
        }
        Ok(object.into())
    }
}
