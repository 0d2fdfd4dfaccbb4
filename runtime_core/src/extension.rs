//! Extensions: named groups of ops with an optional state initialiser.

use crate::{OpDecl, OpState};

/// Fills the op state when a runtime is created.
type StateInit = Box<dyn FnOnce(&mut OpState)>;

/// A named group of ops, registered on a [`crate::Runtime`] when it is created.
///
/// ```
/// use runtime_core::{op, Extension, OpState};
///
/// struct Greeting(u32);
///
/// #[op]
/// fn op_greeting_count(state: &OpState) -> u32 {
///     state.borrow::<Greeting>().0
/// }
///
/// let extension = Extension::new("greet")
///     .ops(&[op_greeting_count::DECL])
///     .state(|state| {
///         state.put(Greeting(3));
///     });
/// assert_eq!(extension.name(), "greet");
/// ```
pub struct Extension {
    name: &'static str,
    ops: &'static [OpDecl],
    state_init: Option<StateInit>,
}

impl Extension {
    /// An extension with no ops yet.
    pub fn new(name: &'static str) -> Self {
        Self {
            name,
            ops: &[],
            state_init: None,
        }
    }

    /// Sets the ops: `&[op_a::DECL, op_b::DECL]` (a constant slice, so `'static`).
    pub fn ops(mut self, ops: &'static [OpDecl]) -> Self {
        self.ops = ops;
        self
    }

    /// Sets a function that fills the runtime's [`OpState`] before any op runs.
    pub fn state(mut self, init: impl FnOnce(&mut OpState) + 'static) -> Self {
        self.state_init = Some(Box::new(init));
        self
    }

    /// The extension's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The extension's ops.
    pub fn op_decls(&self) -> &'static [OpDecl] {
        self.ops
    }

    pub(crate) fn take_state_init(&mut self) -> Option<StateInit> {
        self.state_init.take()
    }
}
