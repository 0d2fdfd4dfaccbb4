//! The ops object (`globalThis.ops`, the `ext:core/ops` module's source), whose functions are
//! made on first use.
//!
//! An op's function costs V8 a template, an `External` and the function itself: about 3,000
//! instructions, most of what a runtime with 1,000 ops cost above one with none when every
//! op's function was made at start (as deno_core 0.413 does). Here the ops object starts
//! empty, and its prototype (the "maker", fixed: the ops object's prototype cannot be changed)
//! carries a named interceptor that V8 asks before the maker's own properties and
//! `Object.prototype`'s. Asked for an op not made yet, it makes the op's function and defines
//! it as an ordinary property of the ops object, where every later read finds it first. So a
//! property a script adds to `Object.prototype` never stands in for an op. `in` and
//! `for...in` see every op; `Object.keys`, `Object.hasOwn`, `Reflect.ownKeys` and spreading see
//! the ops read so far; `delete` of an op never read does nothing (the op is made at its next
//! read).
//!
//! Why not cheaper-looking alternatives:
//! - The interceptor on the ops object itself. Once the object is in dictionary mode (a
//!   thousand ops are past V8's fast-property limit, and glue deletes ops), defining a
//!   property keeps its map, and V8's inline cache for an interceptor on the object a load
//!   starts at keeps asking the interceptor, reading `undefined` once it declines. For a
//!   holder up the prototype chain, V8's caches look in a dictionary-mode object's own
//!   properties first, and a fast-mode object's map changes with each property.
//! - A non-masking interceptor (asked only for names the whole chain lacks): anything a
//!   script added to `Object.prototype` would stand in for the ops not read yet.
//! - A lazy data property per op (`SetLazyDataProperty`): keeps plain-property semantics, but
//!   costs V8 an `AccessorInfo` and an insertion per op, at every start.

use std::cell::Cell;
use std::collections::HashMap;
use std::ffi::c_void;
use std::hash::BuildHasherDefault;
use std::mem::MaybeUninit;

use v8::MapFnTo;

use super::{OpCtx, OpDecl};
use crate::event_loop::async_wrap::AsyncWrap;

/// The index of a runtime's ops by name.
pub(crate) type OpIndex =
    HashMap<&'static str, usize, BuildHasherDefault<super::state::MultiplyHasher>>;

/// The ops of a runtime: a context per op and class member, in registration order, found by
/// name, and which ops the ops object has made. Boxed in the runtime, whose isolate holds its
/// address (the interceptor's data), and outlives the isolate.
pub(crate) struct OpTable {
    pub(crate) ctxs: Box<[OpCtx]>,
    pub(crate) index: OpIndex,
    /// Per context: whether the ops object made the op's function (it is then the object's to
    /// keep, or a script's to delete). Class members are never made here.
    made: Box<[Cell<bool>]>,
    /// Per context: whether the op is internal (never on the ops object or in `ext:core/ops`:
    /// see [`crate::Extension`]'s `internal_ops`).
    internal: Box<[bool]>,
}

impl OpTable {
    pub(crate) fn new(ctxs: Box<[OpCtx]>, index: OpIndex, internal: Box<[bool]>) -> Box<Self> {
        let made = ctxs.iter().map(|_| Cell::new(false)).collect();
        Box::new(Self {
            ctxs,
            index,
            made,
            internal,
        })
    }

    /// Whether the op at `index` is internal.
    pub(crate) fn is_internal(&self, index: usize) -> bool {
        self.internal[index]
    }

    /// Whether the op at `index` is one user code may see: no class member, no internal op.
    pub(crate) fn is_public(&self, index: usize) -> bool {
        !self.internal[index] && !is_class_member(self.ctxs[index].decl)
    }

    /// The public ops' contexts.
    pub(crate) fn public_ops(&self) -> impl Iterator<Item = &OpCtx> {
        (0..self.ctxs.len())
            .filter(|&index| self.is_public(index))
            .map(|index| &self.ctxs[index])
    }

    /// The indices of the ops the ops object made (for a snapshot).
    pub(crate) fn made_ops(&self) -> Vec<usize> {
        (0..self.made.len())
            .filter(|&index| self.made[index].get())
            .collect()
    }

    /// Marks the ops a snapshot's ops object made; `false` if an index is out of range.
    pub(crate) fn restore_made(&self, made: &[usize]) -> bool {
        made.iter().all(|&index| match self.made.get(index) {
            Some(cell) => {
                cell.set(true);
                true
            }
            None => false,
        })
    }

    /// The op of the ops object named `name`, unless it was made already.
    fn unmade_op(
        &self,
        scope: &mut v8::PinScope<'_, '_>,
        name: v8::Local<'_, v8::Name>,
    ) -> Option<usize> {
        let name = v8::Local::<v8::String>::try_from(name).ok()?;
        let mut buffer = [MaybeUninit::<u8>::uninit(); 64];
        let &index = self
            .index
            .get(&*name.to_rust_cow_lossy(scope, &mut buffer))?;
        let op = self.is_public(index) && !self.made[index].get();
        op.then_some(index)
    }
}

/// The ops object of a new context: empty, above the maker of its ops.
pub(crate) fn new_ops_object<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    table: &OpTable,
) -> v8::Local<'s, v8::Object> {
    // The table outlives the isolate (see `OpTable`).
    let data = v8::External::new(scope, table as *const OpTable as *mut c_void);
    // The ops object is an instance of this template, and the maker its prototype.
    // (Its function stays out of reach: see below.)
    let template = v8::FunctionTemplate::new(scope, crate::errors::throw::illegal_constructor);
    let maker = template.prototype_template(scope);
    maker.set_named_property_handler(
        v8::NamedPropertyHandlerConfiguration::new()
            .getter_raw(getter.map_fn_to())
            .query_raw(query.map_fn_to())
            .enumerator_raw(enumerator.map_fn_to())
            .data(data.into())
            .flags(v8::PropertyHandlerFlags::ONLY_INTERCEPT_STRINGS),
    );
    // Its one internal field is the ops object, where made ops go.
    maker.set_internal_field_count(1);
    // A script cannot take the maker out of the chain (`Object.setPrototypeOf(ops, null)`
    // throws), which would hide every op not read yet.
    template.instance_template(scope).set_immutable_proto();
    let ops_object = template
        .instance_template(scope)
        .new_instance(scope)
        .expect("instantiating an object template cannot throw");
    let maker = ops_object
        .get_prototype(scope)
        .and_then(|maker| v8::Local::<v8::Object>::try_from(maker).ok())
        .expect("the ops object's prototype is the maker");
    maker.set_internal_field(0, ops_object.into());
    // The chain is ops object, maker, `Object.prototype`, as for a plain object: the
    // templates' functions stay out of reach (`ops.constructor` is `Object`, or an op so
    // named). V8 puts the prototype template's own constructor's prototype above the maker.
    let constructor = v8::String::new(scope, "constructor").expect("a short string");
    maker
        .delete(scope, constructor.into())
        .expect("deleting the maker's constructor cannot throw");
    let object_prototype = v8::Object::new(scope)
        .get_prototype(scope)
        .expect("a plain object has Object.prototype");
    maker
        .set_prototype(scope, object_prototype)
        .expect("setting the maker's prototype cannot throw");
    ops_object
}

/// The interceptor's callbacks, for a snapshot's external references.
pub(crate) fn interceptor_references() -> [v8::ExternalReference; 3] {
    [
        v8::ExternalReference {
            named_getter: getter.map_fn_to(),
        },
        v8::ExternalReference {
            named_query: query.map_fn_to(),
        },
        v8::ExternalReference {
            enumerator: enumerator.map_fn_to(),
        },
    ]
}

/// The interceptor's table.
fn table<'a>(args: &v8::PropertyCallbackArguments<'_>) -> &'a OpTable {
    let data = v8::Local::<v8::External>::try_from(args.data())
        .expect("the ops object's interceptor data is its table");
    // SAFETY: the data is the runtime's boxed `OpTable`, which outlives the isolate calling.
    unsafe { &*(data.value() as *const OpTable) }
}

/// A read of an op not made yet: makes its function and defines it on the ops object.
fn getter<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    name: v8::Local<'s, v8::Name>,
    args: v8::PropertyCallbackArguments<'s>,
    mut rv: v8::ReturnValue<v8::Value>,
) -> v8::Intercepted {
    let table = table(&args);
    let Some(index) = table.unmade_op(scope, name) else {
        return v8::Intercepted::kNo;
    };
    let Some(ops_object) = args
        .holder()
        .get_internal_field(scope, 0)
        .and_then(|field| v8::Local::<v8::Object>::try_from(field).ok())
    else {
        return v8::Intercepted::kNo;
    };
    let name = v8::Local::<v8::String>::try_from(name).expect("an op's name is a string");
    // Without a function (a stack overflow or a termination left an exception pending) the
    // op stays unmade, for its next read.
    let Some(function) = op_function(scope, name, &table.ctxs[index]) else {
        return v8::Intercepted::kYes;
    };
    let defined = match ops_object.create_data_property(scope, name.into(), function) {
        Some(true) => Some(true),
        // A frozen or sealed ops object: the maker keeps the op (the interceptor declines made
        // ops, and V8 then finds the maker's own property).
        Some(false) => args
            .holder()
            .create_data_property(scope, name.into(), function),
        None => None,
    };
    match defined {
        Some(true) => table.made[index].set(true),
        // A script froze the maker too: the op stays unmade, made again at each read.
        Some(false) => {}
        // An exception is pending: the op stays unmade, for its next read.
        None => return v8::Intercepted::kYes,
    }
    rv.set(function);
    v8::Intercepted::kYes
}

/// `name in ops` and `for...in`: an op not made yet is there, a plain enumerable property.
fn query<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    name: v8::Local<'s, v8::Name>,
    args: v8::PropertyCallbackArguments<'s>,
    mut rv: v8::ReturnValue<v8::Integer>,
) -> v8::Intercepted {
    if table(&args).unmade_op(scope, name).is_none() {
        return v8::Intercepted::kNo;
    }
    rv.set_int32(v8::PropertyAttribute::NONE.as_u32() as i32);
    v8::Intercepted::kYes
}

/// The names of the ops not made yet (for `for...in`).
fn enumerator<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    args: v8::PropertyCallbackArguments<'s>,
    mut rv: v8::ReturnValue<v8::Array>,
) {
    let table = table(&args);
    let names: Vec<v8::Local<v8::Value>> = (0..table.ctxs.len())
        .filter(|&index| table.is_public(index) && !table.made[index].get())
        .map(|index| op_name(scope, table.ctxs[index].decl).into())
        .collect();
    rv.set(v8::Array::new_with_elements(scope, &names));
}

/// The functions of `decls` (one extension's internal ops), on a plain object for that
/// extension's built-in script alone.
pub(crate) fn internal_ops_object<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    table: &OpTable,
    decls: &[OpDecl],
) -> v8::Local<'s, v8::Object> {
    let object = v8::Object::new(scope);
    for decl in decls {
        let index = table.index[decl.name];
        debug_assert!(
            table.internal[index],
            "{} is registered as internal",
            decl.name
        );
        let name = op_name(scope, decl);
        let function = op_function(scope, name, &table.ctxs[index])
            .expect("making an internal op's function at creation cannot fail");
        object
            .create_data_property(scope, name.into(), function)
            .expect("defining a property of a fresh object cannot throw");
    }
    object
}

/// Whether `decl` is a class's member (`Foo.prototype.x`, `new Foo`: never a Rust name).
pub(crate) fn is_class_member(decl: &OpDecl) -> bool {
    // A byte scan (a `char` pattern decodes UTF-8): this runs once per op per runtime made.
    decl.name.bytes().any(|byte| byte == b'.' || byte == b' ')
}

/// An op's name, as the property key it is installed under.
fn op_name<'s>(scope: &mut v8::PinScope<'s, '_>, decl: &OpDecl) -> v8::Local<'s, v8::String> {
    v8::String::new_from_utf8(scope, decl.name.as_bytes(), v8::NewStringType::Internalized)
        .expect("op name fits in a V8 string")
}

/// The function JavaScript calls for an op: its template's, or an async op's wrapper. `None`
/// with an exception pending if V8 could not make it.
fn op_function<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    name: v8::Local<'s, v8::String>,
    op_ctx: &OpCtx,
) -> Option<v8::Local<'s, v8::Value>> {
    let decl = op_ctx.decl;
    let template = super::template::op_template(scope, op_ctx, None);
    template.set_class_name(name);
    let function = template.get_function(scope)?;
    function.set_name(name);
    // An async op is called through its JavaScript wrapper, which makes its promise.
    let Some(call) = decl.flags.async_op else {
        return Some(function.into());
    };
    match AsyncWrap::of(scope, &op_ctx.event_loop) {
        Some(async_wrap) => async_wrap.wrap(scope, function, call, false),
        None => {
            let message = v8::String::new(scope, "the runtime's async ops are not set up yet")?;
            let error = v8::Exception::error(scope, message);
            scope.throw_exception(error);
            None
        }
    }
}
