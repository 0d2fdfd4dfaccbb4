//! Structured-value ops: deno's `op_string_serde` (`#[serde] StringWrapper(String)`), the same
//! through the derive, and an object of 8 mixed fields in and out through the derive, serde
//! and a hand-written `FromV8`/`ToV8`.

use runtime_core::structured::Keys;
use runtime_core::{op, v8, Extension, FromV8, OpError, ToV8};
use serde::{Deserialize, Serialize};

/// deno's bench type, read through serde.
#[derive(Deserialize)]
pub struct StringWrapper(String);

#[op]
pub fn op_string_serde(#[serde] s: StringWrapper) -> u32 {
    s.0.len() as _
}

/// The same newtype, through the derive.
#[derive(FromV8)]
pub struct StringWrapperDerive(String);

#[op]
pub fn op_string_derive(s: StringWrapperDerive) -> u32 {
    s.0.len() as _
}

// ---- an object of 8 mixed fields --------------------------------------------------------------

/// The JavaScript value the `op_object_in_*` benches pass.
pub const RECORD_JS: &str = "const RECORD = {id: 1, name: 'Ada Lovelace', email: 'ada@example.com', \
     score: 99.5, active: true, tags: ['math', 'engines', 'notes', 'poetry'], origin: {x: 1.5, y: -2}, count: 7};";

macro_rules! record {
    ($name:ident, $point:ident, $($derive:tt)*) => {
        $($derive)*
        pub struct $point {
            pub x: f64,
            pub y: f64,
        }

        $($derive)*
        pub struct $name {
            pub id: u32,
            pub name: String,
            pub email: String,
            pub score: f64,
            pub active: bool,
            pub tags: Vec<String>,
            pub origin: $point,
            pub count: i32,
        }

        impl $name {
            fn sample(id: u32) -> Self {
                Self {
                    id,
                    name: "Ada Lovelace".to_owned(),
                    email: "ada@example.com".to_owned(),
                    score: 99.5,
                    active: true,
                    tags: ["math", "engines", "notes", "poetry"].map(str::to_owned).to_vec(),
                    origin: $point { x: 1.5, y: -2.0 },
                    count: 7,
                }
            }

            fn weight(&self) -> u32 {
                self.id
                    + self.name.len() as u32
                    + self.email.len() as u32
                    + self.tags.len() as u32
                    + self.count as u32
                    + u32::from(self.active)
                    + (self.score + self.origin.x + self.origin.y) as u32
            }
        }
    };
}

record!(RecordDerive, PointDerive, #[derive(FromV8, ToV8)]);
record!(RecordSerde, PointSerde, #[derive(Serialize, Deserialize)]);
record!(RecordHand, PointHand,);

#[op]
pub fn op_object_in_derive(record: RecordDerive) -> u32 {
    record.weight()
}

#[op]
pub fn op_object_in_serde(#[serde] record: RecordSerde) -> u32 {
    record.weight()
}

#[op]
pub fn op_object_in_hand(record: RecordHand) -> u32 {
    record.weight()
}

#[op]
pub fn op_object_out_derive(#[smi] id: u32) -> RecordDerive {
    RecordDerive::sample(id)
}

#[op]
#[serde]
pub fn op_object_out_serde(#[smi] id: u32) -> RecordSerde {
    RecordSerde::sample(id)
}

#[op]
pub fn op_object_out_hand(#[smi] id: u32) -> RecordHand {
    RecordHand::sample(id)
}

// ---- the hand-written conversions: as an expert writes them against rusty_v8, keys made once
// per isolate (`Keys`), no error paths beyond a `TypeError` --------------------------------------

static RECORD_KEYS: Keys<8> = Keys::new([
    "id", "name", "email", "score", "active", "tags", "origin", "count",
]);
static POINT_KEYS: Keys<2> = Keys::new(["x", "y"]);

fn get<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    object: v8::Local<'s, v8::Object>,
    key: v8::Local<'s, v8::String>,
) -> Result<v8::Local<'s, v8::Value>, OpError> {
    object
        .get(scope, key.into())
        .ok_or_else(|| OpError::generic("a getter threw"))
}

fn number(value: v8::Local<'_, v8::Value>) -> Result<f64, OpError> {
    v8::Local::<v8::Number>::try_from(value)
        .map(|number| number.value())
        .map_err(|_| OpError::type_error("expected a number"))
}

fn string(
    scope: &mut v8::PinScope<'_, '_>,
    value: v8::Local<'_, v8::Value>,
) -> Result<String, OpError> {
    v8::Local::<v8::String>::try_from(value)
        .map(|string| string.to_rust_string_lossy(scope))
        .map_err(|_| OpError::type_error("expected a string"))
}

impl<'s> FromV8<'s> for RecordHand {
    fn from_v8(
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
    ) -> Result<Self, OpError> {
        let object = v8::Local::<v8::Object>::try_from(value)
            .map_err(|_| OpError::type_error("expected an object"))?;
        let [id, name, email, score, active, tags, origin, count] = RECORD_KEYS.get(scope);
        let id = number(get(scope, object, id)?)? as u32;
        let name = get(scope, object, name)?;
        let name = string(scope, name)?;
        let email = get(scope, object, email)?;
        let email = string(scope, email)?;
        let score = number(get(scope, object, score)?)?;
        let active = get(scope, object, active)?.is_true();
        let tags = v8::Local::<v8::Array>::try_from(get(scope, object, tags)?)
            .map_err(|_| OpError::type_error("expected an array"))?;
        let tags = (0..tags.length())
            .map(|index| {
                let tag = tags
                    .get_index(scope, index)
                    .ok_or_else(|| OpError::generic("a getter threw"))?;
                string(scope, tag)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let origin = v8::Local::<v8::Object>::try_from(get(scope, object, origin)?)
            .map_err(|_| OpError::type_error("expected an object"))?;
        let [x, y] = POINT_KEYS.get(scope);
        let origin = PointHand {
            x: number(get(scope, origin, x)?)?,
            y: number(get(scope, origin, y)?)?,
        };
        let count = number(get(scope, object, count)?)? as i32;
        Ok(Self {
            id,
            name,
            email,
            score,
            active,
            tags,
            origin,
            count,
        })
    }
}

impl ToV8 for RecordHand {
    fn to_v8<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        let text = |scope: &mut v8::PinScope<'s, '_>, text: &str| -> v8::Local<'s, v8::Value> {
            v8::String::new(scope, text).unwrap().into()
        };
        let tags: Vec<v8::Local<v8::Value>> =
            self.tags.iter().map(|tag| text(scope, tag)).collect();
        let tags = v8::Array::new_with_elements(scope, &tags).into();
        let null = v8::null(scope).into();
        let point_values = [
            v8::Number::new(scope, self.origin.x).into(),
            v8::Number::new(scope, self.origin.y).into(),
        ];
        let point_keys = POINT_KEYS.get(scope).map(Into::into);
        let origin =
            v8::Object::with_prototype_and_properties(scope, null, &point_keys, &point_values)
                .into();
        let values = [
            v8::Number::new(scope, self.id.into()).into(),
            text(scope, &self.name),
            text(scope, &self.email),
            v8::Number::new(scope, self.score).into(),
            v8::Boolean::new(scope, self.active).into(),
            tags,
            origin,
            v8::Number::new(scope, self.count.into()).into(),
        ];
        let keys = RECORD_KEYS.get(scope).map(Into::into);
        Ok(v8::Object::with_prototype_and_properties(scope, null, &keys, &values).into())
    }
}

/// Every structured op the benchmark registers.
pub fn extension() -> Extension {
    Extension::new("bench_structured").ops(&[
        op_string_serde::DECL,
        op_string_derive::DECL,
        op_object_in_derive::DECL,
        op_object_in_serde::DECL,
        op_object_in_hand::DECL,
        op_object_out_derive::DECL,
        op_object_out_serde::DECL,
        op_object_out_hand::DECL,
    ])
}
