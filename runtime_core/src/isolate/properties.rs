//! Reading a tenant's objects without running its code: data properties along a prototype
//! chain (never an accessor, a proxy or an interceptor), a descriptor's own fields, and the
//! head of a string that may be hundreds of megabytes.

/// How far up a prototype chain a property is looked for (a longer chain is read as if it
/// ended there).
const MAX_CHAIN: usize = 256;

/// The value of `object`'s data property `name`, own or inherited; `None` at an accessor, a
/// proxy, or the end of the chain.
pub(crate) fn data_property<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    object: v8::Local<'s, v8::Object>,
    name: &str,
) -> Option<v8::Local<'s, v8::Value>> {
    let key = v8::String::new(scope, name)?;
    let mut holder = object;
    for _ in 0..MAX_CHAIN {
        if holder.is_proxy() {
            return None;
        }
        let descriptor = holder.get_own_property_descriptor(scope, key.into())?;
        if let Ok(descriptor) = v8::Local::<v8::Object>::try_from(descriptor) {
            return own_field(scope, descriptor, "value");
        }
        let prototype = holder.get_prototype(scope)?;
        holder = v8::Local::<v8::Object>::try_from(prototype).ok()?;
    }
    None
}

/// A property descriptor's own field (`value`, `get`): V8 makes descriptors as plain objects
/// of data properties, so reading an own one runs nothing.
pub(crate) fn own_field<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    descriptor: v8::Local<'s, v8::Object>,
    field: &str,
) -> Option<v8::Local<'s, v8::Value>> {
    let key = v8::String::new(scope, field)?;
    if !descriptor.has_own_property(scope, key.into())? {
        return None;
    }
    descriptor.get(scope, key.into())
}

/// At most the first `max` UTF-16 units of `text`, and how many more it has: only what is
/// kept is copied out of the heap (a tenant's string may be hundreds of megabytes).
pub(crate) fn string_head(
    scope: &mut v8::PinScope<'_, '_>,
    text: v8::Local<'_, v8::String>,
    max: usize,
) -> (String, usize) {
    let length = text.length();
    if length <= max {
        return (text.to_rust_string_lossy(scope), 0);
    }
    let mut head = vec![0u16; max];
    text.write_v2(scope, 0, &mut head, v8::WriteFlags::empty());
    (String::from_utf16_lossy(&head), length - max)
}
