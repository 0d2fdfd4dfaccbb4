//! Structured values: a JSON-like value decoded from the input is built in V8 through the API
//! (objects, arrays with holes, `-0`, strings of every representation V8 picks), then read back
//! through serde (`serde_json::Value`) and through `FromV8` (`Vec`, maps, `Option`), and
//! compared with what `serde_json` says of the same data. Hostile shapes ride along: sparse
//! arrays of huge length must be refused quickly, never allocated.
#![no_main]

use std::cell::RefCell;
use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use runtime_core::{v8, FromV8, Runtime, RuntimeOptions};
use serde_json::{Map, Number, Value};

thread_local! {
    static RUNTIME: RefCell<Runtime> = RefCell::new(Runtime::new(RuntimeOptions {
        console: None,
        max_sequence_length: 1 << 16,
        ..Default::default()
    }));
}

/// Reads a value from the input's bytes: one tag byte, then what the tag needs; bounded depth.
struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        let (&first, rest) = self.0.split_first().unwrap_or((&0, &[]));
        self.0 = rest;
        first
    }

    fn text(&mut self) -> String {
        let len = usize::from(self.byte() % 24);
        let take = len.min(self.0.len());
        let (bytes, rest) = self.0.split_at(take);
        self.0 = rest;
        // Latin-1 and two-byte text alike: each byte a character, some above U+00FF.
        bytes
            .iter()
            .map(|&b| {
                if b > 0xf0 {
                    char::from_u32(0x3b1 + u32::from(b & 0xf)).unwrap()
                } else {
                    char::from(b)
                }
            })
            .collect()
    }

    fn value(&mut self, depth: u32) -> Value {
        let tag = if depth > 6 {
            self.byte() % 4
        } else {
            self.byte() % 7
        };
        match tag {
            0 => Value::Null,
            1 => Value::Bool(self.byte() & 1 == 1),
            2 => {
                let bytes: [u8; 8] = std::array::from_fn(|_| self.byte());
                let number = f64::from_le_bytes(bytes);
                let number = if number.is_finite() {
                    number
                } else {
                    f64::from(self.byte())
                };
                json_number(number)
            }
            3 => Value::String(self.text()),
            4 | 5 => {
                let len = usize::from(self.byte() % 8);
                Value::Array((0..len).map(|_| self.value(depth + 1)).collect())
            }
            _ => {
                let len = usize::from(self.byte() % 6);
                let mut map = Map::new();
                for _ in 0..len {
                    let key = self.text();
                    let value = self.value(depth + 1);
                    map.insert(key, value);
                }
                Value::Object(map)
            }
        }
    }
}

/// A Number as serde reads one back: integral and exact as an integer, else a float.
fn json_number(number: f64) -> Value {
    if number.fract() == 0.0 && number.abs() <= 9_007_199_254_740_991.0 {
        if number < 0.0 {
            Value::Number(Number::from(number as i64))
        } else {
            Value::Number(Number::from(number as u64))
        }
    } else {
        Number::from_f64(number).map_or(Value::Null, Value::Number)
    }
}

/// The value, built in V8 through the API (not through JSON.parse, not through our serde).
fn build<'s>(scope: &mut v8::PinScope<'s, '_>, value: &Value) -> v8::Local<'s, v8::Value> {
    match value {
        Value::Null => v8::null(scope).into(),
        Value::Bool(b) => v8::Boolean::new(scope, *b).into(),
        Value::Number(n) => v8::Number::new(scope, n.as_f64().unwrap()).into(),
        Value::String(s) => v8::String::new(scope, s).unwrap().into(),
        Value::Array(items) => {
            let elements: Vec<_> = items.iter().map(|item| build(scope, item)).collect();
            v8::Array::new_with_elements(scope, &elements).into()
        }
        Value::Object(map) => {
            let object = v8::Object::new(scope);
            for (key, item) in map {
                let key = v8::String::new(scope, key).unwrap();
                let item = build(scope, item);
                object
                    .create_data_property(scope, key.into(), item)
                    .unwrap();
            }
            object.into()
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let expected = Input(data).value(0);
    RUNTIME.with_borrow_mut(|runtime| {
        runtime.with_scope(|scope| {
            let built = build(scope, &expected);
            // serde: exactly the data.
            let read: Value =
                runtime_core::serde::from_v8(scope, built).expect("JSON-like data reads");
            assert_eq!(read, expected);
            // FromV8: the shapes it has types for agree with serde_json's view.
            match &expected {
                Value::Array(items) => {
                    let numbers = Vec::<Option<f64>>::from_v8(scope, built);
                    let expected_numbers: Option<Vec<Option<f64>>> = items
                        .iter()
                        .map(|item| match item {
                            Value::Null => Some(None),
                            Value::Number(n) => Some(Some(n.as_f64().unwrap())),
                            _ => None,
                        })
                        .collect();
                    assert_eq!(numbers.ok(), expected_numbers);
                }
                Value::Object(map) => {
                    let strings = BTreeMap::<String, String>::from_v8(scope, built);
                    let expected_strings: Option<BTreeMap<String, String>> = map
                        .iter()
                        .map(|(key, item)| Some((key.clone(), item.as_str()?.to_owned())))
                        .collect();
                    assert_eq!(strings.ok(), expected_strings);
                }
                _ => {}
            }
            // A sparse array of a lying length: refused, never reserved.
            let holes = v8::Array::new(scope, 0);
            let length = v8::String::new(scope, "length").unwrap();
            let huge = v8::Number::new(scope, f64::from(u32::from(data.len() as u16) << 16)).into();
            holes.set(scope, length.into(), huge).unwrap();
            let read = Vec::<Option<u8>>::from_v8(scope, holes.into());
            assert!(
                read.is_ok() == (holes.length() <= 1 << 16),
                "{}",
                holes.length()
            );
            let read: Result<Value, _> = runtime_core::serde::from_v8(scope, holes.into());
            assert!(read.is_ok() == (holes.length() <= 1 << 16));
        });
    });
});
