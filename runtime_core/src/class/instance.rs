//! How instances live on V8's C++ heap (cppgc): a Rust value behind a header saying what it
//! is, wrapped into its JavaScript object, read back type-checked, and held beyond a call.

use std::any::TypeId;
use std::cell::Cell;
use std::ffi::CStr;
use std::rc::Rc;

use super::Trace;

/// A runtime's instances: how many are alive (a snapshot may hold none), and whether the
/// runtime's heap still is (a [`Held`] that outlives it must not read it). Boxed in the
/// runtime, which drops it after its isolate: the last finalizers run as the isolate goes.
#[derive(Default)]
pub(crate) struct Instances {
    live: Cell<usize>,
    heap_alive: Rc<Cell<bool>>,
}

impl Instances {
    pub(crate) fn new() -> Box<Self> {
        let instances = Box::new(Self::default());
        instances.heap_alive.set(true);
        instances
    }

    /// How many instances are alive (not yet finalized).
    pub(crate) fn live(&self) -> usize {
        self.live.get()
    }

    /// The heap goes (the isolate is disposed or made a snapshot of): every `Held` of it
    /// refuses to be read from now on.
    pub(crate) fn heap_gone(&self) {
        self.heap_alive.set(false);
    }
}

/// The isolate's embedder data slot holding its runtime's [`Instances`] (a data slot, not a
/// rusty_v8 slot: a constructor reads it with one call, where a slot is a map lookup).
const INSTANCES_DATA_SLOT: u32 = 0;

impl Instances {
    /// Gives `isolate` these instances, which must outlive it.
    pub(crate) fn attach(&self, isolate: &mut v8::Isolate) {
        isolate.set_data(
            INSTANCES_DATA_SLOT,
            self as *const Self as *mut std::ffi::c_void,
        );
    }

    /// The instances `attach` gave `isolate`; null in an isolate of no runtime.
    fn of(isolate: &v8::Isolate) -> *const Self {
        isolate.get_data(INSTANCES_DATA_SLOT).cast_const().cast()
    }
}

/// The cppgc tag of every opwire instance: the Rust type is checked through the header.
const TAG: u16 = 1;

/// A Rust value on cppgc behind a header saying what it is. The header is 16-aligned (cppgc's
/// largest alignment) and 32 bytes long, so the value sits at offset 32 for every `T`, and the
/// instance itself at the same offset in cppgc's allocation: an instance of unknown type is
/// read as `Instance<()>` to learn its type before anything else is read.
///
/// The value is dropped by `Instance`'s own `Drop`, which cppgc's finalizer runs from C++: a
/// panic there would cross an `extern "C"` frame and abort the process, so it is caught and
/// reported (see `report_drop_panic`).
#[repr(C)]
pub struct Instance<T> {
    header: Header,
    value: std::mem::ManuallyDrop<T>,
}

impl<T> Drop for Instance<T> {
    fn drop(&mut self) {
        // SAFETY: the runtime's `Instances`, which outlive its isolate (whose heap finalizes
        // this instance, on its thread).
        if let Some(instances) = unsafe { self.header.instances.as_ref() } {
            instances.live.set(instances.live.get() - 1);
        }
        // SAFETY: dropped once, here; nothing reads the value after its instance's `Drop`.
        let dropped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe {
            std::mem::ManuallyDrop::drop(&mut self.value)
        }));
        if let Err(payload) = dropped {
            crate::errors::throw::report_drop_panic(std::any::type_name::<T>(), &*payload);
        }
    }
}

#[repr(C, align(16))]
struct Header {
    type_id: TypeId,
    /// `T::BASE`: how the value is seen as one of its base classes.
    base: Option<crate::class::Upcast>,
    /// Its runtime's count (null in an isolate of no runtime).
    instances: *const Instances,
}

const _: () = {
    assert!(std::mem::size_of::<Header>() == 32);
    assert!(std::mem::offset_of!(Instance<()>, value) == 32);
    assert!(std::mem::offset_of!(Instance<u8>, value) == 32);
    assert!(std::mem::offset_of!(Instance<u128>, value) == 32);
};

// SAFETY: `trace` visits what the value declares through `Trace`; the header holds no
// references.
unsafe impl<T: Trace> v8::cppgc::GarbageCollected for Instance<T> {
    fn trace(&self, visitor: &mut v8::cppgc::Visitor) {
        self.value.trace(visitor);
    }

    fn get_name(&self) -> &'static CStr {
        c"opwire class instance"
    }
}

/// Wraps `value` into `object` (made from its class's template), on the isolate's C++ heap.
#[ops_macro::inline_hot]
pub(crate) fn wrap<T: Trace + 'static>(
    isolate: &mut v8::Isolate,
    object: v8::Local<'_, v8::Object>,
    value: T,
) {
    let instances = Instances::of(isolate);
    // SAFETY: the `Instances` `attach` gave the isolate outlive it.
    if let Some(instances) = unsafe { instances.as_ref() } {
        instances.live.set(instances.live.get() + 1);
    }
    let heap = isolate
        .get_cpp_heap()
        .expect("V8 gives every isolate a C++ heap") as *const _;
    // SAFETY: the heap is the isolate's, alive as long as it; the pointer made is stored into
    // the object at once (the object then keeps the instance alive).
    unsafe {
        let instance = v8::cppgc::make_garbage_collected(
            &*heap,
            Instance {
                header: Header {
                    type_id: TypeId::of::<T>(),
                    base: T::BASE,
                    instances,
                },
                value: std::mem::ManuallyDrop::new(value),
            },
        );
        v8::Object::wrap::<TAG, Instance<T>>(isolate, object, &instance);
    }
}

/// The `T` that `value` wraps, if it is an instance of `T`'s class (or of a JavaScript
/// subclass of it).
///
/// The reference is valid while `value` is reachable: for the call that received it.
#[ops_macro::inline_hot]
pub(crate) fn unwrap<'a, T: 'static>(
    isolate: &mut v8::Isolate,
    value: v8::Local<'_, v8::Value>,
) -> Option<&'a T> {
    let object = v8::Local::<v8::Object>::try_from(value).ok()?;
    if !object.is_api_wrapper() {
        return None;
    }
    unwrap_wrapper(isolate, object)
}

/// As [`unwrap`], for an object known to be an API wrapper: a receiver, which V8 checked
/// against the class's signature (so made from its template) before calling.
#[ops_macro::inline_hot]
pub(crate) fn unwrap_wrapper<'a, T: 'static>(
    isolate: &mut v8::Isolate,
    object: v8::Local<'_, v8::Object>,
) -> Option<&'a T> {
    // SAFETY: every opwire instance is an `Instance<_>` under `TAG`; `Instance<()>` has the
    // header at the same offset (see `Instance`), and the pointer is not kept.
    let untyped = unsafe { v8::Object::unwrap::<TAG, Instance<()>>(isolate, object) }?;
    let allocation = v8::cppgc::GetRustObj::<Instance<()>>::get_rust_obj(&untyped).cast::<u8>();
    // SAFETY: `untyped` points to a live instance (the object holds it).
    let instance: &Instance<()> = unsafe { untyped.as_ref() };
    let header = &instance.header;
    // The value's address, derived from the allocation's pointer (not from the 32-byte
    // `&Instance<()>`, whose provenance ends at the header): the same offset for every `T`.
    let offset = (instance as *const Instance<()> as usize) - (allocation as usize)
        + std::mem::offset_of!(Instance<()>, value);
    let value = allocation.wrapping_add(offset).cast::<()>();
    let value = if header.type_id == TypeId::of::<T>() {
        value
    } else {
        // An instance of a class derived from `T`'s?
        // SAFETY: `base` is the upcast `wrap` stored for the instance's own type, and `value`
        // points to a live value of it.
        unsafe { (header.base?)(value, TypeId::of::<T>()) }?
    };
    // SAFETY: the header says the value is a `T` (or its upcast found the `T` inside it); the
    // object keeps it alive while the caller's handle to it lives.
    Some(unsafe { &*value.cast::<T>() })
}

/// An instance kept alive beyond the call that received it (a cppgc persistent handle): what
/// an async method holds its receiver by, and what `#[cppgc] Held<T>` arguments are. Derefs to
/// the value: the `T` itself, or the `T` inside an instance of a class derived from `T`'s.
///
/// A `Held` outlives its runtime only as a tombstone: reading it then panics (in an op, the
/// op's call throws that as an `Error`; [`Held::get`] says `None` instead), and dropping it
/// leaks the handle's few bytes rather than touch the freed heap.
pub struct Held<T: Trace + 'static> {
    /// Keeps the instance (of `T`'s class or a derived one) alive; typed by its header alone.
    /// Dropped only while the heap lives.
    instance: std::mem::ManuallyDrop<v8::cppgc::Persistent<Instance<()>>>,
    value: std::ptr::NonNull<T>,
    heap_alive: Rc<Cell<bool>>,
}

impl<T: Trace + 'static> Held<T> {
    /// The value, while its runtime lives.
    pub fn get(&self) -> Option<&T> {
        if !self.heap_alive.get() {
            return None;
        }
        // SAFETY: `value` points into the instance `instance` keeps alive while the heap lives;
        // cppgc does not move objects of the default space.
        Some(unsafe { self.value.as_ref() })
    }
}

impl<T: Trace + 'static> std::ops::Deref for Held<T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.get().unwrap_or_else(|| {
            panic!(
                "a Held<{}> was read after its runtime was dropped",
                std::any::type_name::<T>()
            )
        })
    }
}

impl<T: Trace + 'static> Drop for Held<T> {
    fn drop(&mut self) {
        if self.heap_alive.get() {
            // SAFETY: dropped once, here, while its heap lives.
            unsafe { std::mem::ManuallyDrop::drop(&mut self.instance) };
        }
    }
}

/// A persistent handle to `object`'s instance, if it is a `T` or an instance of a class
/// derived from `T`'s (upcast as a call's `&T` is).
pub(crate) fn hold<T: Trace + 'static>(
    isolate: &mut v8::Isolate,
    object: v8::Local<'_, v8::Object>,
) -> Option<Held<T>> {
    let value = std::ptr::NonNull::from(unwrap_wrapper::<T>(isolate, object)?);
    // SAFETY: the `Instances` `attach` gave the isolate outlive it.
    let instances = unsafe { Instances::of(isolate).as_ref()? };
    let heap_alive = instances.heap_alive.clone();
    // SAFETY: as in `unwrap_wrapper`: read only as its header; the handle is made at once.
    let instance = unsafe { v8::Object::unwrap::<TAG, Instance<()>>(isolate, object) }?;
    Some(Held {
        instance: std::mem::ManuallyDrop::new(v8::cppgc::Persistent::new(&instance)),
        value,
        heap_alive,
    })
}
