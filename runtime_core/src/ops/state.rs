//! `OpState`: per-runtime storage that ops reach by type.

use std::any::{type_name, Any, TypeId};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Hashes with one multiply per word (FxHash's combine) instead of SipHash's rounds: a
/// `TypeId` (already a hash of its type) on every state borrow an op makes (deno's `OpState`
/// does the same), and op names, per op when a runtime is made. The maps' keys are no
/// script's choice (scripts' reads of the ops object only look names up), so flooding one is
/// not a concern. Any input folds in, so a map is correct whatever its keys write.
#[derive(Default)]
pub(crate) struct MultiplyHasher(u64);

impl MultiplyHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for MultiplyHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            self.add(u64::from_le_bytes(word.try_into().expect("8 bytes")));
        }
        for &byte in words.remainder() {
            self.add(u64::from(byte));
        }
    }

    fn write_u64(&mut self, word: u64) {
        self.add(word);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A map from type to one value of that type, owned by a [`crate::Runtime`] and lent to ops
/// that take `&OpState`, `&mut OpState` or `Rc<RefCell<OpState>>`.
#[derive(Default)]
pub struct OpState {
    // Lookup only, never iterated: the order of a HashMap is irrelevant here.
    values: HashMap<TypeId, Box<dyn Any>, BuildHasherDefault<MultiplyHasher>>,
}

// `borrow`/`borrow_mut` are the names embedders know from deno_core's OpState; they take a
// type parameter, so they cannot be mistaken for `Borrow::borrow` at a call site.
#[allow(clippy::should_implement_trait)]
impl OpState {
    /// An empty state.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores `value`, returning the value of the same type it replaces.
    pub fn put<T: 'static>(&mut self, value: T) -> Option<T> {
        self.values
            .insert(TypeId::of::<T>(), Box::new(value))
            .map(|old| {
                *old.downcast::<T>()
                    .expect("OpState entry keyed by its own TypeId")
            })
    }

    /// Whether a value of type `T` is stored.
    pub fn has<T: 'static>(&self) -> bool {
        self.values.contains_key(&TypeId::of::<T>())
    }

    /// The stored `T`.
    ///
    /// # Panics
    /// If no `T` is stored; use [`OpState::try_borrow`] when that can happen.
    #[track_caller]
    pub fn borrow<T: 'static>(&self) -> &T {
        self.try_borrow()
            .unwrap_or_else(|| panic!("OpState holds no {}", type_name::<T>()))
    }

    /// The stored `T`, mutably.
    ///
    /// # Panics
    /// If no `T` is stored; use [`OpState::try_borrow_mut`] when that can happen.
    #[track_caller]
    pub fn borrow_mut<T: 'static>(&mut self) -> &mut T {
        self.try_borrow_mut()
            .unwrap_or_else(|| panic!("OpState holds no {}", type_name::<T>()))
    }

    /// The stored `T`, if any.
    pub fn try_borrow<T: 'static>(&self) -> Option<&T> {
        self.values.get(&TypeId::of::<T>())?.downcast_ref()
    }

    /// The stored `T`, mutably, if any.
    pub fn try_borrow_mut<T: 'static>(&mut self) -> Option<&mut T> {
        self.values.get_mut(&TypeId::of::<T>())?.downcast_mut()
    }

    /// Removes and returns the stored `T`, if any.
    pub fn take<T: 'static>(&mut self) -> Option<T> {
        self.values.remove(&TypeId::of::<T>()).map(|old| {
            *old.downcast::<T>()
                .expect("OpState entry keyed by its own TypeId")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::OpState;

    #[derive(Debug, PartialEq)]
    struct Counter(u32);

    #[test]
    fn many_types_each_find_their_own() {
        macro_rules! put_all {
            ($state:ident, $($ty:ty = $value:expr),*) => {$(
                $state.put::<$ty>($value);
            )*};
        }
        let mut state = OpState::new();
        put_all!(state, u8 = 1, u16 = 2, u32 = 3, u64 = 4, i8 = 5, i16 = 6, i32 = 7,
            i64 = 8, String = "s".into(), Vec<u8> = vec![9], (u8, u8) = (10, 11));
        assert_eq!(
            (
                *state.borrow::<u8>(),
                *state.borrow::<u16>(),
                *state.borrow::<u64>()
            ),
            (1, 2, 4)
        );
        assert_eq!(
            (*state.borrow::<i32>(), state.borrow::<String>().as_str()),
            (7, "s")
        );
        assert_eq!(*state.borrow::<(u8, u8)>(), (10, 11));
        assert!(!state.has::<f64>());
    }

    #[test]
    fn put_borrow_replace_take() {
        let mut state = OpState::new();
        assert!(state.try_borrow::<Counter>().is_none());
        assert_eq!(state.put(Counter(1)), None);
        state.borrow_mut::<Counter>().0 += 1;
        assert_eq!(state.borrow::<Counter>(), &Counter(2));
        assert_eq!(state.put(Counter(7)), Some(Counter(2)));
        state.put(5u8);
        assert_eq!(state.take::<Counter>(), Some(Counter(7)));
        assert!(!state.has::<Counter>());
        assert_eq!(*state.borrow::<u8>(), 5);
    }

    #[test]
    #[should_panic(expected = "OpState holds no")]
    fn borrow_of_missing_type_names_it() {
        OpState::new().borrow::<Counter>();
    }
}
