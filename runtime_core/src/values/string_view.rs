//! A place for a `v8::ValueView` that it is built in and never leaves.
//!
//! `v8::ValueView::new` returns the view by value: V8 writes its 32 bytes into a temporary
//! with word-sized stores, and the compiler then copies them to where the view lives with
//! 16-byte loads, which the CPU cannot forward from those stores: the copy waits for them to
//! reach the cache, once per string argument read on the slow path. Built in place, the view
//! is read with the loads its writer's stores match.

use std::mem::MaybeUninit;

use crate::v8_raw::v8__String__ValueView__CONSTRUCT;

/// Room for one string's view; the view, once built, is dropped with it. (Aligned as the C++
/// object it holds is: rusty_v8's `ValueView` is a byte array.)
#[repr(C, align(8))]
pub struct ViewSlot<'s> {
    view: MaybeUninit<v8::ValueView<'s>>,
    built: bool,
}

impl<'s> ViewSlot<'s> {
    /// Empty room: nothing to drop.
    #[ops_macro::inline_hot]
    pub const fn new() -> Self {
        Self {
            view: MaybeUninit::uninit(),
            built: false,
        }
    }

    /// Builds the view of `string` here (dropping the one built before, if any).
    #[ops_macro::inline_hot]
    pub fn build(
        &mut self,
        isolate: &mut v8::Isolate,
        string: v8::Local<'s, v8::String>,
    ) -> &v8::ValueView<'s> {
        self.clear();
        // SAFETY: `buf` is room for a `ValueView`, uninitialised (cleared above); the isolate
        // pointer is the live isolate `isolate` borrows; `string` is rooted for `'s`, which the
        // view's lifetime carries, as `v8::ValueView::new` requires.
        unsafe {
            v8__String__ValueView__CONSTRUCT(
                self.view.as_mut_ptr(),
                isolate.as_raw_isolate_ptr(),
                &*string,
            );
        }
        self.built = true;
        // SAFETY: built just above.
        unsafe { self.view.assume_init_ref() }
    }

    /// The view built here, if any.
    #[ops_macro::inline_hot]
    pub fn get(&self) -> Option<&v8::ValueView<'s>> {
        // SAFETY: `built` says the view is initialised.
        self.built.then(|| unsafe { self.view.assume_init_ref() })
    }

    /// Moves the view out (the slow copy; for paths that transcode anyway).
    #[ops_macro::inline_hot]
    pub fn take(&mut self) -> Option<v8::ValueView<'s>> {
        // SAFETY: `built` says the view is initialised; it is marked gone before it is read
        // out, so it is dropped once, by the taker.
        std::mem::take(&mut self.built).then(|| unsafe { self.view.assume_init_read() })
    }

    /// Drops the view built here, if any (a flag test when there is none).
    #[ops_macro::inline_hot]
    fn clear(&mut self) {
        if self.built {
            self.built = false;
            // SAFETY: it was built, and is marked gone first, so it is dropped once.
            unsafe { self.view.assume_init_drop() };
        }
    }
}

impl Default for ViewSlot<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for ViewSlot<'_> {
    #[ops_macro::inline_hot]
    fn drop(&mut self) {
        self.clear();
    }
}
