//! Rust values as JavaScript class instances: what `#[op] impl Foo { .. }` declares
//! ([`ClassDecl`]) and how instances live on V8's C++ heap (cppgc).
//!
//! An instance is a JavaScript object made from the class's `FunctionTemplate` that wraps the
//! Rust value, allocated with cppgc: V8's garbage collector frees it (running `Drop`) once
//! JavaScript no longer reaches the object. Methods, getters and setters are ops whose first
//! argument is the receiver: V8 checks it against the class's signature (a receiver not made
//! by the class is V8's `TypeError: Illegal invocation`, on either path, before the op runs).
//!
//! Here: the declarations and installing a class; `instance.rs`: instances on cppgc and
//! [`Held`]; `templates.rs`: each class's template per isolate and the constructor callbacks;
//! `values.rs`: instances a host passes in and reads back outside ops ([`Wrapped`]).

use std::any::TypeId;
use std::ffi::c_void;

pub(crate) mod instance;
pub(crate) mod templates;
mod values;

use crate::OpDecl;
pub use instance::Held;
pub use values::Wrapped;

/// What a member of a class is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemberKind {
    /// `Foo.prototype.name(...)`.
    Method,
    /// `get name()` on the prototype.
    Getter,
    /// `set name(value)` on the prototype.
    Setter,
    /// `Foo.name(...)`.
    Static,
}

/// One member: its JavaScript name, kind and op.
#[derive(Clone, Copy)]
pub struct ClassMember {
    /// The property name.
    pub name: &'static str,
    /// Method, accessor or static.
    pub kind: MemberKind,
    /// The op (its name, `Foo.name`, is what errors say).
    pub decl: OpDecl,
}

/// What `#[op] impl Foo` generates (`Foo::CLASS`): register it with
/// [`crate::Extension::classes`]; the class is then `ops.Foo`.
#[derive(Clone, Copy)]
pub struct ClassDecl {
    /// The class name.
    pub name: &'static str,
    /// The Rust type's id: instances are checked against it when unwrapped.
    pub type_id: fn() -> TypeId,
    /// The `#[constructor]`, if any (without one, `new Foo()` throws a `TypeError`).
    pub constructor: Option<OpDecl>,
    /// Methods, accessors and statics.
    pub members: &'static [ClassMember],
    /// `#[op(inherit = Base)]`: the base class's Rust type (its template is the prototype
    /// parent; its members take instances of this class).
    pub base: Option<fn() -> TypeId>,
    /// Its TypeScript declaration in the ops namespace: `class Foo { .. }`.
    pub typescript: &'static str,
    /// The types its members' declarations name, declared beside it.
    pub typescript_types: crate::TsTypes,
}

/// What an instance holds that V8's collector must know of: `v8::TracedReference`s and cppgc
/// `Member`s. `#[op] impl` writes an empty impl unless the impl block says `#[op(trace)]`, and
/// then the type implements it.
///
/// # Safety
/// `trace` must visit every traced reference the value holds (an untraced one is freed by the
/// collector while the value still points at it), and may be called by the collector while
/// the value is in use (concurrent marking). [`BASE`](Trace::BASE) must be
/// [`upcast::<Self, Base>`](upcast) of this type's `#[op(inherit = Base)]` base, or `None`.
pub unsafe trait Trace {
    /// `#[op(inherit = Base)]`: how an instance of this type is seen as one of a base class
    /// (`#[op] impl` sets it).
    const BASE: Option<Upcast> = None;

    /// Visits every traced reference the value holds.
    fn trace(&self, visitor: &mut v8::cppgc::Visitor) {
        let _ = visitor;
    }
}

/// Sees a value (by address) as one of type `to` along its chain of bases, if it is one.
///
/// # Safety
/// The pointer must be to a live value of the type the function was made for.
pub type Upcast = unsafe fn(*const (), TypeId) -> Option<*const ()>;

/// The [`Upcast`] of a class `D` whose base is `B` (`D: AsRef<B>`).
///
/// # Safety
/// `value` must point to a live `D`.
pub unsafe fn upcast<D: AsRef<B> + 'static, B: Trace + 'static>(
    value: *const (),
    to: TypeId,
) -> Option<*const ()> {
    // SAFETY: the caller passes a live `D`.
    let value = unsafe { &*value.cast::<D>() };
    let base: &B = value.as_ref();
    let base = (base as *const B).cast::<()>();
    if to == TypeId::of::<B>() {
        Some(base)
    } else {
        // SAFETY: `base` points into the live `D`, at its `B`, which is what `B::BASE` takes.
        B::BASE.and_then(|upcast| unsafe { upcast(base, to) })
    }
}

/// The header-only instance type an instance is first read as (see `instance::Instance`).
// SAFETY: `()` holds nothing to trace and has no base.
unsafe impl Trace for () {}

/// Makes `class`'s template (constructor, prototype members, statics), keeps it for
/// `#[cppgc]` returns, and sets `ops[class.name]` to its function.
pub(crate) fn install<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    ops_object: v8::Local<'s, v8::Object>,
    class: &'static ClassDecl,
    op_ctxs: &[crate::OpCtx],
    op_index: &crate::ops::ops_object::OpIndex,
    async_wrap: crate::event_loop::async_wrap::AsyncWrap<'s>,
) {
    use crate::errors::throw::illegal_constructor;
    use templates::{constructor_trampoline, ClassTemplates};

    let op_ctx = |decl: &OpDecl| &op_ctxs[op_index[decl.name]];
    let template = match &class.constructor {
        Some(constructor) => {
            let ctx = op_ctx(constructor);
            // The constructor's context lives in `Runtime::op_ctxs`, which outlives the isolate.
            let data = v8::External::new(scope, ctx as *const crate::OpCtx as *mut c_void);
            v8::FunctionTemplate::builder_raw(constructor_trampoline)
                .data(data.into())
                .length(constructor.arity() as i32)
                .build(scope)
        }
        None => v8::FunctionTemplate::new(scope, illegal_constructor),
    };
    let name = v8::String::new(scope, class.name).expect("a class name fits in a V8 string");
    template.set_class_name(name);
    if let Some(base) = class.base {
        let parent = scope
            .get_slot::<ClassTemplates>()
            .and_then(|templates| templates.0.get(&base()))
            .cloned()
            .unwrap_or_else(|| {
                panic!(
                    "class `{}` inherits from a class not registered before it: register the base \
                     class first (`Extension::classes(&[Base::CLASS, {}::CLASS])`)",
                    class.name, class.name
                )
            });
        let parent = v8::Local::new(scope, parent);
        template.inherit(parent);
    }
    let signature = v8::Signature::new(scope, template);
    let prototype = template.prototype_template(scope);
    // `String(instance)` is `[object Foo]`, as for built-in classes.
    let tag = v8::Symbol::get_to_string_tag(scope);
    prototype.set_with_attr(
        tag.into(),
        name.into(),
        v8::PropertyAttribute::READ_ONLY | v8::PropertyAttribute::DONT_ENUM,
    );
    let mut accessors: Vec<(&str, Option<_>, Option<_>)> = Vec::new();
    // Async methods and statics are defined once the class exists, behind their wrappers.
    let mut async_members = Vec::new();
    for member in class.members {
        let key = v8::String::new(scope, member.name).expect("a member name fits in a V8 string");
        // Statics are called on the class, the rest on instances (V8 checks the receiver).
        let receiver_check = (member.kind != MemberKind::Static).then_some(signature);
        let function =
            crate::ops::template::op_template(scope, op_ctx(&member.decl), receiver_check);
        match (member.kind, member.decl.flags.async_op) {
            (MemberKind::Method, Some(call)) => async_members.push((key, function, call, true)),
            (MemberKind::Static, Some(call)) => async_members.push((key, function, call, false)),
            (MemberKind::Method, None) => prototype.set(key.into(), function.into()),
            (MemberKind::Static, None) => template.set(key.into(), function.into()),
            (MemberKind::Getter | MemberKind::Setter, _) => {
                let entry = match accessors
                    .iter_mut()
                    .find(|(name, _, _)| *name == member.name)
                {
                    Some(entry) => entry,
                    None => {
                        accessors.push((member.name, None, None));
                        accessors.last_mut().expect("pushed")
                    }
                };
                if member.kind == MemberKind::Getter {
                    entry.1 = Some(function);
                } else {
                    entry.2 = Some(function);
                }
            }
        }
    }
    for (name, getter, setter) in accessors {
        let key = v8::String::new(scope, name).expect("a member name fits in a V8 string");
        prototype.set_accessor_property(key.into(), getter, setter, v8::PropertyAttribute::NONE);
    }
    let global = v8::Global::new(scope, template);
    if scope.get_slot::<ClassTemplates>().is_none() {
        scope.set_slot(ClassTemplates::default());
    }
    scope
        .get_slot_mut::<ClassTemplates>()
        .expect("set above")
        .0
        .insert((class.type_id)(), global);
    let function = template
        .get_function(scope)
        .expect("instantiating a class template cannot throw");
    if !async_members.is_empty() {
        let prototype_key = v8::String::new(scope, "prototype").expect("a short string");
        let prototype = function
            .get(scope, prototype_key.into())
            .and_then(|value| v8::Local::<v8::Object>::try_from(value).ok())
            .expect("a class has its prototype");
        for (key, member, call, is_method) in async_members {
            let member = member
                .get_function(scope)
                .expect("instantiating a member template cannot throw");
            member.set_name(key);
            let wrapper = async_wrap
                .wrap(scope, member, call, is_method)
                .expect("wrapping a function while the runtime is made cannot throw");
            let holder: v8::Local<v8::Object> = if is_method {
                prototype
            } else {
                function.into()
            };
            holder
                .create_data_property(scope, key.into(), wrapper)
                .expect("defining a member on a fresh class cannot throw");
        }
    }
    ops_object
        .set(scope, name.into(), function.into())
        .expect("defining a class on a plain object cannot throw");
}
