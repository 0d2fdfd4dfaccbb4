//! What each kind of value prints as, read through V8's API without running a script's code:
//! primitives, and the shape of each kind of object (its braces, the text before them, its
//! elements), its own keys and properties.

use crate::isolate::{data_property, own_field, string_head as head_of};

/// How many UTF-16 units of a string are printed (Node's `maxStringLength`).
const MAX_STRING_LENGTH: usize = 10_000;
/// How many UTF-16 units of an error's stack are printed: its frames are the runtime's
/// (a few hundred at most, each line cut), its message a script's.
const MAX_STACK_LENGTH: usize = 100_000;

/// The elements an object prints besides its keys.
pub(super) enum Extras<'s> {
    None,
    /// An array's or typed array's length.
    Array(u32),
    /// A set's values.
    Set(v8::Local<'s, v8::Array>),
    /// A map's keys and values, in turn.
    Map(v8::Local<'s, v8::Array>),
    /// `None` while pending; else whether fulfilled, and the value or reason.
    Promise(Option<(bool, v8::Local<'s, v8::Value>)>),
    /// An ArrayBuffer's `[Uint8Contents]: <..>` entry.
    Bytes(String),
}

impl Extras<'_> {
    /// Arrays' entries are grouped in columns (Node's `kArrayExtrasType`).
    pub(super) fn is_array(&self) -> bool {
        matches!(self, Self::Array(_))
    }
}

/// How an object prints.
pub(super) struct Shape<'s> {
    pub(super) extras: Extras<'s>,
    /// What comes before the opening brace (`Map(2)`, `Foo`, `[Object: null prototype]`).
    prefix: String,
    /// `[` or `{`.
    open: &'static str,
    /// The whole text of a value printed without braces when it has no keys (a function, a
    /// date, an error), and the base before its braces when it has.
    pub(super) whole: Option<String>,
    /// Whether it prints as its empty braces when it has no keys.
    pub(super) empty: bool,
    /// Its name beyond the depth limit: `[Object]`, `[Array]`, `[Foo]`.
    pub(super) short_name: String,
    /// An array's or typed array's indices are its elements, not keys.
    pub(super) skip_indices: bool,
}

impl Shape<'_> {
    pub(super) fn braces(&self) -> (String, &'static str) {
        let close = if self.open == "[" { "]" } else { "}" };
        let open = if self.prefix.is_empty() {
            self.open.to_owned()
        } else {
            format!("{} {}", self.prefix, self.open)
        };
        (open, close)
    }

    pub(super) fn empty_form(&self) -> String {
        let (open, close) = self.braces();
        format!("{open}{close}")
    }
}

/// `text` cut to `max` UTF-16 units, with what was cut said as Node says it.
pub(super) fn bounded_text(
    scope: &mut v8::PinScope<'_, '_>,
    text: v8::Local<'_, v8::String>,
    max: usize,
) -> String {
    let (head, more) = head_of(scope, text, max);
    if more == 0 {
        return head;
    }
    let plural = if more == 1 { "" } else { "s" };
    format!("{head}... {more} more character{plural}")
}

pub(super) fn primitive(
    scope: &mut v8::PinScope<'_, '_>,
    value: v8::Local<'_, v8::Value>,
) -> String {
    if let Ok(text) = v8::Local::<v8::String>::try_from(value) {
        // Node's `maxStringLength`: a long string is cut (a tenant's 100 MB string costs the
        // host no 100 MB of text).
        let (head, more) = head_of(scope, text, MAX_STRING_LENGTH);
        if more > 0 {
            let plural = if more == 1 { "" } else { "s" };
            return format!("{}... {more} more character{plural}", quote(&head));
        }
        return quote(&head);
    }
    if value.is_number() {
        let number = value.number_value(scope).unwrap_or(f64::NAN);
        if number == 0.0 && number.is_sign_negative() {
            return "-0".to_owned();
        }
    }
    if let Ok(symbol) = v8::Local::<v8::Symbol>::try_from(value) {
        return symbol_text(scope, symbol);
    }
    let text = value
        .to_detail_string(scope)
        .map(|text| text.to_rust_string_lossy(scope))
        .unwrap_or_default();
    if value.is_big_int() {
        format!("{text}n")
    } else {
        text
    }
}

fn symbol_text(scope: &mut v8::PinScope<'_, '_>, symbol: v8::Local<'_, v8::Symbol>) -> String {
    let description = symbol.description(scope);
    match v8::Local::<v8::String>::try_from(description) {
        Ok(description) => format!(
            "Symbol({})",
            bounded_text(scope, description, MAX_STRING_LENGTH)
        ),
        Err(_) => "Symbol()".to_owned(),
    }
}

/// A string in quotes as Node picks them: single, else double, else backticks, escaped.
pub(super) fn quote(text: &str) -> String {
    let quote = if !text.contains('\'') {
        '\''
    } else if !text.contains('"') {
        '"'
    } else if !text.contains('`') && !text.contains("${") {
        '`'
    } else {
        '\''
    };
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push(quote);
    for c in text.chars() {
        match c {
            '\n' => quoted.push_str("\\n"),
            '\t' => quoted.push_str("\\t"),
            '\r' => quoted.push_str("\\r"),
            '\u{8}' => quoted.push_str("\\b"),
            '\u{c}' => quoted.push_str("\\f"),
            '\u{b}' => quoted.push_str("\\x0B"),
            '\\' => quoted.push_str("\\\\"),
            c if c == quote => {
                quoted.push('\\');
                quoted.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                quoted.push_str(&format!("\\x{:02X}", c as u32));
            }
            c => quoted.push(c),
        }
    }
    quoted.push(quote);
    quoted
}

pub(super) fn key_name(scope: &mut v8::PinScope<'_, '_>, key: v8::Local<'_, v8::Name>) -> String {
    if let Ok(symbol) = v8::Local::<v8::Symbol>::try_from(key) {
        return format!("[{}]", symbol_text(scope, symbol));
    }
    let name = match v8::Local::<v8::String>::try_from(key) {
        Ok(key) => bounded_text(scope, key, MAX_STRING_LENGTH),
        Err(_) => key.to_rust_string_lossy(scope),
    };
    let mut chars = name.chars();
    let identifier = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if identifier {
        name
    } else {
        quote(&name)
    }
}

/// An object's own enumerable keys, strings then symbols (indices left out for arrays), and
/// how many V8 listed (what reading them cost).
pub(super) fn own_keys<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    object: v8::Local<'s, v8::Object>,
    skip_indices: bool,
) -> (Vec<v8::Local<'s, v8::Name>>, usize) {
    let args = v8::GetPropertyNamesArgs {
        mode: v8::KeyCollectionMode::OwnOnly,
        property_filter: v8::PropertyFilter::ONLY_ENUMERABLE,
        index_filter: if skip_indices {
            v8::IndexFilter::SkipIndices
        } else {
            v8::IndexFilter::IncludeIndices
        },
        // V8 lists the indices of arrays whatever the filter says: kept as numbers, they are
        // left out without a string made of each.
        key_conversion: if skip_indices {
            v8::KeyConversionMode::KeepNumbers
        } else {
            v8::KeyConversionMode::ConvertToString
        },
    };
    let Some(names) = object.get_own_property_names(scope, args) else {
        return (Vec::new(), 0);
    };
    let keys = (0..names.length())
        .filter_map(|index| names.get_index(scope, index))
        .filter_map(|name| v8::Local::<v8::Name>::try_from(name).ok())
        .collect();
    (keys, names.length() as usize)
}

/// An array's element `index`, which it has as its own: a typed array's is read as it is
/// (reading one runs nothing), another's through its descriptor (a getter is not called).
pub(super) fn element<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    array: v8::Local<'s, v8::Object>,
    index: u32,
) -> Property<'s> {
    if array.is_typed_array() {
        return Property::Value(
            array
                .get_index(scope, index)
                .unwrap_or_else(|| v8::undefined(scope).into()),
        );
    }
    match v8::Integer::new_from_unsigned(scope, index).to_string(scope) {
        Some(key) => own_property(scope, array, key.into()),
        None => Property::Value(v8::undefined(scope).into()),
    }
}

pub(super) enum Property<'s> {
    Value(v8::Local<'s, v8::Value>),
    /// Whether it has a getter, a setter.
    Accessor(bool, bool),
}

pub(super) fn own_property<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    object: v8::Local<'s, v8::Object>,
    key: v8::Local<'s, v8::Name>,
) -> Property<'s> {
    let descriptor = object
        .get_own_property_descriptor(scope, key)
        .and_then(|descriptor| v8::Local::<v8::Object>::try_from(descriptor).ok());
    let Some(descriptor) = descriptor else {
        return Property::Value(v8::undefined(scope).into());
    };
    if let Some(value) = own_field(scope, descriptor, "value") {
        return Property::Value(value);
    }
    let getter = own_field(scope, descriptor, "get").is_some_and(|get| get.is_function());
    let setter = own_field(scope, descriptor, "set").is_some_and(|set| set.is_function());
    Property::Accessor(getter, setter)
}

/// A function's name, unless it is a callable proxy (which has none V8 can read without a
/// trap, and whose name V8 reads by aborting).
pub(super) fn function_name(
    scope: &mut v8::PinScope<'_, '_>,
    value: v8::Local<'_, v8::Value>,
) -> Option<String> {
    if value.is_proxy() {
        return None;
    }
    let function = v8::Local::<v8::Function>::try_from(value).ok()?;
    let name = function.get_name(scope);
    Some(bounded_text(scope, name, MAX_STRING_LENGTH))
}

/// The name of the first constructor up the prototype chain (Node's `getConstructorName`);
/// `None` for an object of no prototype. A proxy met on the chain ends the walk (each step
/// past it would be a trap): V8's own reading of the name, which runs no script, stands in.
fn constructor_name(
    scope: &mut v8::PinScope<'_, '_>,
    object: v8::Local<'_, v8::Object>,
) -> Option<String> {
    let key = v8::String::new(scope, "constructor")?;
    let mut holder = object;
    for _ in 0..256 {
        if holder.is_proxy() {
            let name = object.get_constructor_name();
            return Some(bounded_text(scope, name, MAX_STRING_LENGTH));
        }
        if let Some(descriptor) = holder
            .get_own_property_descriptor(scope, key.into())
            .and_then(|d| v8::Local::<v8::Object>::try_from(d).ok())
        {
            if let Some(name) = own_field(scope, descriptor, "value")
                .and_then(|constructor| function_name(scope, constructor))
            {
                if !name.is_empty() {
                    return Some(name);
                }
            }
        }
        holder = v8::Local::<v8::Object>::try_from(holder.get_prototype(scope)?).ok()?;
    }
    None
}

/// The run of holes in an array from `index`: none if the array has the element as its own;
/// else up to the next index it has, found in `present` (its own indices in order, read at
/// the first hole): a run of four billion holes costs one lookup, not four billion. Only
/// own elements are asked for: what a prototype has at an index (a getter, a proxy) is never
/// reached.
pub(super) fn holes_from(
    scope: &mut v8::PinScope<'_, '_>,
    array: v8::Local<'_, v8::Object>,
    index: u32,
    length: u32,
    present: &mut Option<Vec<u32>>,
) -> u32 {
    if array.is_typed_array() {
        return 0;
    }
    let own = v8::Integer::new_from_unsigned(scope, index)
        .to_string(scope)
        .and_then(|key| array.has_own_property(scope, key.into()));
    if own.unwrap_or(true) {
        return 0;
    }
    let present = present.get_or_insert_with(|| own_indices(scope, array));
    let after = present.partition_point(|&present| present <= index);
    let next = present.get(after).copied().unwrap_or(length).min(length);
    next - index
}

/// An array's own indices, ascending.
fn own_indices(scope: &mut v8::PinScope<'_, '_>, array: v8::Local<'_, v8::Object>) -> Vec<u32> {
    let args = v8::GetPropertyNamesArgs {
        mode: v8::KeyCollectionMode::OwnOnly,
        property_filter: v8::PropertyFilter::SKIP_SYMBOLS,
        index_filter: v8::IndexFilter::IncludeIndices,
        key_conversion: v8::KeyConversionMode::KeepNumbers,
    };
    let Some(names) = array.get_own_property_names(scope, args) else {
        return Vec::new();
    };
    let mut indices: Vec<u32> = (0..names.length())
        .filter_map(|i| names.get_index(scope, i))
        .filter(|name| name.is_uint32())
        .filter_map(|name| name.uint32_value(scope))
        .collect();
    indices.sort_unstable();
    indices
}

pub(super) fn shape<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    object: v8::Local<'s, v8::Object>,
) -> Shape<'s> {
    let constructor = constructor_name(scope, object);
    let named = |fallback: &str| constructor.clone().unwrap_or_else(|| fallback.to_owned());
    let plain = |prefix: String, short_name: String| Shape {
        extras: Extras::None,
        prefix,
        open: "{",
        whole: None,
        empty: true,
        short_name,
        skip_indices: false,
    };
    if let Ok(array) = v8::Local::<v8::Array>::try_from(object) {
        let name = named("Array");
        let length = array.length();
        return Shape {
            extras: Extras::Array(length),
            prefix: if name == "Array" {
                String::new()
            } else {
                format!("{name}({length})")
            },
            open: "[",
            whole: None,
            empty: length == 0,
            short_name: name,
            skip_indices: true,
        };
    }
    // `Uint8Array(3) [`, `Set(2) {`, `Map(0) {}`: the name and the count before the brace.
    let counted = |extras, name: String, count: usize, open| Shape {
        extras,
        prefix: format!("{name}({count})"),
        open,
        whole: None,
        empty: count == 0,
        short_name: name,
        skip_indices: open == "[",
    };
    if let Ok(typed) = v8::Local::<v8::TypedArray>::try_from(object) {
        let length = typed.length();
        return counted(
            Extras::Array(length as u32),
            named("TypedArray"),
            length,
            "[",
        );
    }
    if let Ok(set) = v8::Local::<v8::Set>::try_from(object) {
        let items = set.as_array(scope);
        return counted(Extras::Set(items), named("Set"), set.size(), "{");
    }
    if let Ok(map) = v8::Local::<v8::Map>::try_from(object) {
        let items = map.as_array(scope);
        return counted(Extras::Map(items), named("Map"), map.size(), "{");
    }
    if let Ok(function) = v8::Local::<v8::Function>::try_from(object) {
        let mut shape = plain(String::new(), named("Function"));
        shape.whole = Some(function_base(scope, function, constructor.as_deref()));
        shape.empty = false;
        return shape;
    }
    if object.is_native_error() {
        let mut shape = plain(String::new(), named("Error"));
        shape.whole = Some(error_base(scope, object));
        shape.empty = false;
        return shape;
    }
    if let Ok(date) = v8::Local::<v8::Date>::try_from(object) {
        let mut shape = plain(String::new(), named("Date"));
        shape.whole = Some(iso_date(date.value_of()));
        shape.empty = false;
        return shape;
    }
    if let Ok(regexp) = v8::Local::<v8::RegExp>::try_from(object) {
        let mut shape = plain(String::new(), named("RegExp"));
        shape.whole = Some(regexp_text(scope, regexp));
        shape.empty = false;
        return shape;
    }
    if let Ok(promise) = v8::Local::<v8::Promise>::try_from(object) {
        let state = match promise.state() {
            v8::PromiseState::Pending => None,
            v8::PromiseState::Fulfilled => Some((true, promise.result(scope))),
            v8::PromiseState::Rejected => Some((false, promise.result(scope))),
        };
        let name = named("Promise");
        let mut shape = plain(name.clone(), name);
        shape.extras = Extras::Promise(state);
        shape.empty = false;
        return shape;
    }
    if let Ok(buffer) = v8::Local::<v8::ArrayBuffer>::try_from(object) {
        let name = named("ArrayBuffer");
        let mut shape = plain(name.clone(), name);
        shape.extras = Extras::Bytes(format!(
            "[Uint8Contents]: {}, byteLength: {}",
            byte_contents(buffer),
            buffer.byte_length()
        ));
        shape.empty = false;
        return shape;
    }
    if object.is_weak_map() || object.is_weak_set() {
        let name = named(if object.is_weak_map() {
            "WeakMap"
        } else {
            "WeakSet"
        });
        let mut shape = plain(name.clone(), name);
        shape.extras = Extras::Bytes("<items unknown>".to_owned());
        shape.empty = false;
        return shape;
    }
    match constructor {
        None => plain(
            "[Object: null prototype]".to_owned(),
            "Object: null prototype".to_owned(),
        ),
        Some(name) if name == "Object" => plain(String::new(), name),
        Some(name) => plain(name.clone(), name),
    }
}

/// `[Function: f]`, `[AsyncFunction (anonymous)]`, `[class A extends B]`.
fn function_base(
    scope: &mut v8::PinScope<'_, '_>,
    function: v8::Local<'_, v8::Function>,
    constructor: Option<&str>,
) -> String {
    let name = function_name(scope, function.into()).unwrap_or_default();
    // V8's side-effect-free conversion gives a function's source (no `toString` is called);
    // its first characters say whether it is a class.
    let source = function
        .to_detail_string(scope)
        .map(|text| head_of(scope, text, 6).0)
        .unwrap_or_default();
    if source.starts_with("class") && source[5..].starts_with([' ', '{']) {
        let mut base = if name.is_empty() {
            "[class (anonymous)".to_owned()
        } else {
            format!("[class {name}")
        };
        if let Some(parent) = function
            .get_prototype(scope)
            .and_then(|parent| function_name(scope, parent))
        {
            if !parent.is_empty() {
                base.push_str(&format!(" extends {parent}"));
            }
        }
        base.push(']');
        return base;
    }
    let mut kind = "Function".to_owned();
    if function.is_generator_function() {
        kind = format!("Generator{kind}");
    }
    if function.is_async_function() {
        kind = format!("Async{kind}");
    }
    let mut base = format!("[{kind}");
    if constructor.is_none() {
        base.push_str(" (null prototype)");
    }
    if name.is_empty() {
        base.push_str(" (anonymous)");
    } else {
        base.push_str(&format!(": {name}"));
    }
    base.push(']');
    if let Some(constructor) = constructor {
        if constructor != kind && constructor != "Function" {
            base.push_str(&format!(" {constructor}"));
        }
    }
    base
}

/// An error's stack as it reads (a data property, or V8's own accessor, formatted without a
/// script's `Error.prepareStackTrace`), in brackets when it has no frames; cut at
/// [`MAX_STACK_LENGTH`].
fn error_base<'s>(scope: &mut v8::PinScope<'s, '_>, error: v8::Local<'s, v8::Object>) -> String {
    let stack = crate::isolate::error_stack_head(scope, error, MAX_STACK_LENGTH);
    let text = match stack {
        Some((stack, 0)) => stack,
        Some((stack, more)) => {
            let plural = if more == 1 { "" } else { "s" };
            format!("{stack}... {more} more character{plural}")
        }
        None => {
            let mut read = |name: &str| {
                data_property(scope, error, name)
                    .and_then(|value| v8::Local::<v8::String>::try_from(value).ok())
                    .map(|text| bounded_text(scope, text, MAX_STRING_LENGTH))
            };
            let name = read("name").unwrap_or_else(|| "Error".to_owned());
            let message = read("message").unwrap_or_default();
            if message.is_empty() {
                name
            } else {
                format!("{name}: {message}")
            }
        }
    };
    if text.contains("\n    at") {
        text
    } else {
        format!("[{text}]")
    }
}

fn regexp_text<'s>(scope: &mut v8::PinScope<'s, '_>, regexp: v8::Local<'s, v8::RegExp>) -> String {
    let source = regexp.get_source(scope);
    let source = bounded_text(scope, source, MAX_STRING_LENGTH);
    format!("/{source}/{}", regexp_flags(regexp).unwrap_or_default())
}

/// The flags as the `flags` getter of `RegExp.prototype` orders them, read from V8's object:
/// no getter of a script's (on the prototype, or a proxy there) runs.
fn regexp_flags(regexp: v8::Local<'_, v8::RegExp>) -> Option<String> {
    use v8::RegExpCreationFlags as F;
    let flags = crate::v8_raw::regexp_flags(&regexp)?;
    let letters = [
        (F::HAS_INDICES, 'd'),
        (F::GLOBAL, 'g'),
        (F::IGNORE_CASE, 'i'),
        (F::MULTILINE, 'm'),
        (F::DOT_ALL, 's'),
        (F::UNICODE, 'u'),
        (F::UNICODE_SETS, 'v'),
        (F::STICKY, 'y'),
    ];
    Some(
        letters
            .iter()
            .filter(|(flag, _)| flags.contains(*flag))
            .map(|(_, letter)| letter)
            .collect(),
    )
}

fn byte_contents(buffer: v8::Local<'_, v8::ArrayBuffer>) -> String {
    let length = buffer.byte_length();
    let shown = length.min(50);
    let mut text = String::from("<");
    if let Some(data) = buffer.data() {
        // SAFETY: the buffer's own memory, `byte_length` bytes, read while it is alive and
        // not detached (no JavaScript runs meanwhile).
        let bytes = unsafe { std::slice::from_raw_parts(data.as_ptr().cast::<u8>(), shown) };
        let hex: Vec<String> = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
        text.push_str(&hex.join(" "));
    }
    if length > shown {
        text.push_str(&format!(
            " ... {} more byte{}",
            length - shown,
            if length - shown == 1 { "" } else { "s" }
        ));
    }
    text.push('>');
    text
}

/// `Date.prototype.toISOString`, or `Invalid Date`.
fn iso_date(time: f64) -> String {
    if !time.is_finite() {
        return "Invalid Date".to_owned();
    }
    let millis = time as i64;
    let days = millis.div_euclid(86_400_000);
    let in_day = millis.rem_euclid(86_400_000);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let year = if (0..=9999).contains(&year) {
        format!("{year:04}")
    } else if year < 0 {
        format!("-{:06}", -year)
    } else {
        format!("+{year:06}")
    };
    format!(
        "{year}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_print_as_iso_strings() {
        assert_eq!(iso_date(0.0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_date(951_782_400_123.0), "2000-02-29T00:00:00.123Z");
        assert_eq!(iso_date(-1.0), "1969-12-31T23:59:59.999Z");
        assert_eq!(iso_date(f64::NAN), "Invalid Date");
    }

    #[test]
    fn strings_take_the_quotes_node_picks() {
        assert_eq!(quote("a"), "'a'");
        assert_eq!(quote("it's"), "\"it's\"");
        assert_eq!(quote("'\""), "`'\"`");
        assert_eq!(quote("a\nb"), "'a\\nb'");
    }
}
