//! Property keys made once per isolate: [`Keys`] is a `static` list of names (the derive emits
//! one per type); the first use in an isolate internalizes them and keeps them in an isolate
//! slot, later uses make handles to those strings. No string is made or hashed per call.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The keys of one type, in field order. Declare it as a `static` (as the derives do): a
/// `const` would be a new list, with a new cache entry, at every use.
pub struct Keys<const N: usize> {
    names: [&'static str; N],
    /// 1 + this list's index in every isolate's [`KeyCache`]; 0 until first used.
    id: AtomicUsize,
}

static NEXT_ID: AtomicUsize = AtomicUsize::new(1);

/// Per isolate: the internalized strings of every [`Keys`] used there, by id.
#[derive(Default)]
struct KeyCache {
    lists: Vec<Option<Box<[v8::Global<v8::String>]>>>,
}

impl<const N: usize> Keys<N> {
    /// The names; ASCII or not, any string works.
    pub const fn new(names: [&'static str; N]) -> Self {
        Self {
            names,
            id: AtomicUsize::new(0),
        }
    }

    fn index(&self) -> usize {
        match self.id.load(Ordering::Relaxed) {
            0 => {
                let fresh = NEXT_ID.fetch_add(1, Ordering::Relaxed);
                // Another thread may have raced us: whichever id landed first is the id.
                match self
                    .id
                    .compare_exchange(0, fresh, Ordering::Relaxed, Ordering::Relaxed)
                {
                    Ok(_) => fresh - 1,
                    Err(landed) => landed - 1,
                }
            }
            id => id - 1,
        }
    }

    /// The keys as strings of this isolate.
    #[inline]
    pub fn get<'s>(&self, scope: &mut v8::PinScope<'s, '_>) -> [v8::Local<'s, v8::String>; N] {
        let index = self.index();
        let cached = scope
            .get_slot::<KeyCache>()
            .and_then(|cache| cache.lists.get(index))
            .and_then(Option::as_deref)
            .map(|list| list as *const [v8::Global<v8::String>]);
        let list = match cached {
            Some(list) => list,
            None => self.fill(scope, index),
        };
        // SAFETY: a list, once in the cache, is never removed or replaced while the isolate
        // lives, and its boxed memory does not move when the cache's `Vec` grows; nothing below
        // touches the cache.
        let list = unsafe { &*list };
        std::array::from_fn(|position| v8::Local::new(scope, &list[position]))
    }

    #[cold]
    fn fill(
        &self,
        scope: &mut v8::PinScope<'_, '_>,
        index: usize,
    ) -> *const [v8::Global<v8::String>] {
        let list: Box<[v8::Global<v8::String>]> = self
            .names
            .iter()
            .map(|name| {
                let string = v8::String::new_from_utf8(
                    scope,
                    name.as_bytes(),
                    v8::NewStringType::Internalized,
                )
                .expect("a property name V8 can hold");
                v8::Global::new(scope, string)
            })
            .collect();
        if scope.get_slot::<KeyCache>().is_none() {
            scope.set_slot(KeyCache::default());
        }
        let cache = scope.get_slot_mut::<KeyCache>().expect("set above");
        if cache.lists.len() <= index {
            cache.lists.resize_with(index + 1, || None);
        }
        &**cache.lists[index].insert(list)
    }
}

/// Per isolate: strings for names known only at run time but `'static` (serde's field and
/// variant names), by address.
#[derive(Default)]
struct StaticNames(std::collections::HashMap<(usize, usize), v8::Global<v8::String>>);

/// `name` as an internalized string of this isolate, made on its first use there.
#[inline]
pub(crate) fn static_name<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    name: &'static str,
) -> v8::Local<'s, v8::String> {
    let address = (name.as_ptr() as usize, name.len());
    let cached = scope
        .get_slot::<StaticNames>()
        .and_then(|names| names.0.get(&address))
        .map(|global| global as *const v8::Global<v8::String>);
    if let Some(global) = cached {
        // SAFETY: the pointer is into the slot's map, which nothing changes between here and
        // `Local::new` (making a handle touches no slot); it is not kept beyond.
        let global = unsafe { &*global };
        return v8::Local::new(scope, global);
    }
    make_static_name(scope, name, address)
}

#[cold]
fn make_static_name<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    name: &'static str,
    address: (usize, usize),
) -> v8::Local<'s, v8::String> {
    let string = v8::String::new_from_utf8(scope, name.as_bytes(), v8::NewStringType::Internalized)
        .expect("a name V8 can hold");
    let global = v8::Global::new(scope, string);
    if scope.get_slot::<StaticNames>().is_none() {
        scope.set_slot(StaticNames::default());
    }
    scope
        .get_slot_mut::<StaticNames>()
        .expect("set above")
        .0
        .insert(address, global);
    string
}

/// Per isolate: the strings of serde's struct field lists (`&'static [&'static str]`), by the
/// list's address: one lookup per struct read, not one per field.
#[derive(Default)]
struct StaticLists(std::collections::HashMap<(usize, usize), Box<[v8::Global<v8::String>]>>);

/// The names of `fields` as internalized strings of this isolate, made on first use there.
/// The pointer stays valid while the isolate lives (entries are never removed or replaced, and
/// a boxed list does not move when the map grows); nothing may be kept beyond the isolate.
#[inline]
pub(crate) fn static_names(
    scope: &mut v8::PinScope<'_, '_>,
    fields: &'static [&'static str],
) -> *const [v8::Global<v8::String>] {
    let address = (fields.as_ptr() as usize, fields.len());
    let cached = scope
        .get_slot::<StaticLists>()
        .and_then(|lists| lists.0.get(&address))
        .map(|list| &**list as *const [v8::Global<v8::String>]);
    match cached {
        Some(list) => list,
        None => make_static_names(scope, fields, address),
    }
}

#[cold]
fn make_static_names(
    scope: &mut v8::PinScope<'_, '_>,
    fields: &'static [&'static str],
    address: (usize, usize),
) -> *const [v8::Global<v8::String>] {
    let list: Box<[v8::Global<v8::String>]> = fields
        .iter()
        .map(|name| {
            let string =
                v8::String::new_from_utf8(scope, name.as_bytes(), v8::NewStringType::Internalized)
                    .expect("a name V8 can hold");
            v8::Global::new(scope, string)
        })
        .collect();
    if scope.get_slot::<StaticLists>().is_none() {
        scope.set_slot(StaticLists::default());
    }
    let lists = scope.get_slot_mut::<StaticLists>().expect("set above");
    &**lists.0.entry(address).or_insert(list)
}

/// Drops the isolate's caches of property names (a snapshot may hold no handle; a runtime
/// made from it fills them again).
pub(crate) fn forget_caches(isolate: &mut v8::Isolate) {
    isolate.remove_slot::<KeyCache>();
    isolate.remove_slot::<StaticNames>();
    isolate.remove_slot::<StaticLists>();
}
