//! Checks on the op as a whole, once every argument has a kind.

use crate::internals::Ctxt;

use crate::ir::{ArgKind, FastMode, Op, Passed, RetKind};

/// Records every problem with the combination of arguments and options.
pub fn check(cx: &Ctxt, op: &Op) {
    check_async(cx, op);
    check_fast_required(cx, op);
    check_state_borrows(cx, op);
    check_buffer_borrows(cx, op);
}

/// A `&mut [u8]` buffer must be the op's only borrowed buffer: JavaScript may pass the same
/// memory twice, and two Rust borrows of it, one of them exclusive, would alias.
fn check_buffer_borrows(cx: &Ctxt, op: &Op) {
    if op.can_run_js() {
        // JavaScript run by the op could detach or resize the buffer under the borrow.
        for arg in op
            .args
            .iter()
            .filter(|arg| arg.kind.buffer_borrow_mutability().is_some())
        {
            cx.error_at(
                arg.span,
                "an op that can run JavaScript (it takes the scope, the isolate or a \
                 `#[from_v8]` argument) could detach the buffer under this borrow: take \
                 `#[buffer(copy)]` or a `v8::Local<v8::Uint8Array>`",
            );
        }
    }
    let borrowed: Vec<_> = op
        .args
        .iter()
        .filter_map(|arg| {
            arg.kind
                .buffer_borrow_mutability()
                .map(|mutable| (arg, mutable))
        })
        .collect();
    // A handle that can reach a buffer could read or write the bytes a `&mut [u8]` holds.
    let reaching_local = op.args.iter().find(|arg| {
        arg.kind.traits().reaches_buffers
            && arg.kind.is_js_visible()
            && !matches!(arg.kind, ArgKind::FromV8)
    });
    // (It could also detach the buffer, or write it through its backing store, under a shared
    // borrow: both need no scope.)
    if let (Some(local), Some(_)) = (reaching_local, borrowed.first()) {
        cx.error_at(
            local.span,
            "through this argument (a handle, or a kept buffer) the op could reach (detach, or \
             write) the memory its buffer argument borrows: take the buffer with \
             `#[buffer(copy)]`, or this argument as a narrower type",
        );
    }
    if borrowed.len() > 1 {
        for (arg, mutable) in &borrowed {
            if *mutable {
                cx.error_at(
                    arg.span,
                    "a `&mut [u8]` buffer must be the op's only borrowed buffer: JavaScript may pass \
                     the same memory twice; take the others with `#[buffer(copy)]`",
                );
            }
        }
    }
}

/// `#[op(fast)]` promises a fast path: every argument and the return must allow one. An async
/// op's fast call speaks its own protocol, so it cannot borrow another op's (`fast(op_x)`).
fn check_fast_required(cx: &Ctxt, op: &Op) {
    if let (Some(other), Some(_)) = (&op.fast_alternative, &op.async_op) {
        cx.error_at(
            syn::spanned::Spanned::span(other),
            "an async op cannot take another op's fast path (`fast(...)`): its fast call returns \
             a status its JavaScript wrapper reads; drop `fast(...)` (an async op gets its own \
             fast path where its arguments allow one)",
        );
    }
    if op.fast_mode == FastMode::Required {
        if let Some((span, reason)) = op.fast_blocker() {
            cx.error_at(
                span,
                format!("`#[op(fast)]`, but this cannot be part of a fast call: {reason}"),
            );
        }
    }
}

/// An op that can run JavaScript (it takes the scope) must not hold the op state borrowed
/// while it does, or any op that JavaScript calls would find it taken; and the state can be
/// borrowed once per call.
fn check_state_borrows(cx: &Ctxt, op: &Op) {
    let takes_scope = op.can_run_js();
    let mut borrowed = false;
    for arg in &op.args {
        let passed = arg.kind.passed();
        let is_borrow = matches!(passed, Passed::StateRef | Passed::StateMut);
        if passed == Passed::StateMut && takes_scope {
            cx.error_at(
                arg.span,
                "an op that can run JavaScript (it takes the scope, the isolate or a \
                 `#[from_v8]` argument) may have JavaScript call ops that need the state: take \
                 `Rc<RefCell<OpState>>` and borrow it only where no JavaScript runs",
            );
        }
        if is_borrow && borrowed {
            cx.error_at(
                arg.span,
                "the op state is borrowed by an earlier argument already",
            );
        }
        borrowed |= is_borrow;
    }
    let scope_count = op
        .args
        .iter()
        .filter(|arg| arg.kind.passed() == Passed::Scope)
        .count();
    if scope_count > 1 {
        let second = op
            .args
            .iter()
            .filter(|arg| arg.kind.passed() == Passed::Scope)
            .nth(1);
        if let Some(arg) = second {
            cx.error_at(arg.span, "an op takes the scope at most once");
        }
    }
}

/// An `async fn` op's future holds its arguments: each must outlive the call. Its result must
/// too (it is made after the call).
fn check_async(cx: &Ctxt, op: &Op) {
    let Some(async_op) = &op.async_op else {
        return;
    };
    if async_op.is_async_fn {
        for arg in &op.args {
            if let Some(instead) = arg.kind.owned_alternative() {
                cx.error_at(
                    arg.span,
                    format!(
                        "an `async fn` op holds its arguments across awaits, and this one lives \
                         only during the call: take {instead}"
                    ),
                );
            }
        }
    }
    if op.ret.kind == RetKind::Local {
        cx.error_at(
            op.ret.span,
            "an async op's result is made after the call, when its handles are gone: return a \
             `v8::Global`",
        );
    } else if op.ret.borrows {
        cx.error_at(
            op.ret.span,
            "an async op's result outlives its arguments: return an owned `String`",
        );
    }
}
