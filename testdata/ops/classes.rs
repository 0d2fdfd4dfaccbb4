// `#[op] impl`: deno_ops' `op2/test_cases/sync/object_wrap.rs` in opwire's spelling (its
// `#[required]` and `#[varargs]` members left out; `#[validate]` without `#[fast]`, which
// would skip the check), a class with a factory, and a validated constructor.
// Read by the expansion snapshots; `runtime_core/tests/integration/classes.rs` runs them.

pub struct Foo {
    x: Cell<u32>,
}

#[op]
impl Foo {
    #[constructor]
    #[cppgc]
    pub fn constructor(x: Option<u32>) -> Foo {
        Foo {
            x: Cell::new(x.unwrap_or_default()),
        }
    }

    #[fast]
    #[getter]
    pub fn x(&self) -> u32 {
        self.x.get()
    }

    #[fast]
    #[setter]
    pub fn x(&self, x: u32) {
        self.x.set(x);
    }

    #[nofast]
    pub fn bar(&self, _v: u32) {}

    #[fast]
    pub fn zzz(&self) {}

    #[nofast]
    #[rename("with_RENAME")]
    fn with_rename(&self) {}

    #[nofast]
    #[static_method]
    fn do_thing() {}

    #[nofast]
    fn do_thing(&self) {}

    /// A method taking another instance of the class.
    #[fast]
    fn add(&self, #[cppgc] other: &Foo) -> u32 {
        self.x.get() + other.x.get()
    }

    /// Strings and errors as free ops have them.
    #[string]
    fn describe(&self, #[string] prefix: &str) -> Result<String, OpError> {
        if prefix.is_empty() {
            return Err(OpError::type_error("empty prefix"));
        }
        Ok(format!("{prefix}{}", self.x.get()))
    }
}

/// A class without a constructor: instances come from a factory op.
pub struct Handle {
    id: u32,
}

#[op]
impl Handle {
    #[getter]
    fn id(&self) -> u32 {
        self.id
    }
}

#[op]
#[cppgc]
fn op_open_handle(id: u32) -> Handle {
    Handle { id }
}

/// A base class and a class that extends it (deno's `#[op2(base)]` / `#[op2(inherit = ..)]`):
/// the derived value holds its base, `AsRef` finds it.
pub struct Shape {
    sides: u32,
}

#[op(base)]
impl Shape {
    #[getter]
    fn sides(&self) -> u32 {
        self.sides
    }

    fn describe_shape(&self) -> u32 {
        self.sides * 10
    }
}

pub struct Square {
    shape: Shape,
    side: f64,
}

impl AsRef<Shape> for Square {
    fn as_ref(&self) -> &Shape {
        &self.shape
    }
}

#[op(inherit = Shape)]
impl Square {
    #[constructor]
    fn new(side: f64) -> Square {
        Square {
            shape: Shape { sides: 4 },
            side,
        }
    }

    fn area(&self) -> f64 {
        self.side * self.side
    }
}

/// Takes any shape (a `Square` too).
#[op(fast)]
fn op_sides(#[cppgc] shape: &Shape) -> u32 {
    shape.sides
}

/// deno's `cppgc_resource.rs`: a type that is no class, wrapped in a plain object.
pub struct Wrap;

// SAFETY: `Wrap` holds nothing to trace and has no base.
unsafe impl Trace for Wrap {}

#[op(fast)]
fn op_cppgc_object(#[cppgc] _resource: &Wrap) {}

#[op(fast)]
fn op_option_cppgc_object(#[cppgc] _resource: Option<&Wrap>) {}

#[op]
#[cppgc]
fn op_make_cppgc_object() -> Wrap {
    Wrap
}

#[op(fast)]
fn op_use_cppgc_object(#[cppgc] _wrap: &Wrap) {}

#[op]
#[cppgc]
fn op_make_cppgc_object_option() -> Option<Wrap> {
    Some(Wrap)
}

/// deno's validator shape: it sees the call's raw arguments before any is converted.
fn positive_first(
    scope: &mut v8::PinScope<'_, '_>,
    args: &v8::FunctionCallbackArguments<'_>,
) -> Result<(), OpError> {
    match args.get(0).number_value(scope) {
        Some(n) if n > 0.0 => Ok(()),
        _ => Err(OpError::range_error("the first argument must be a positive number")),
    }
}

/// A class whose constructor and one method validate their arguments first.
pub struct Checked {
    size: u32,
}

#[op]
impl Checked {
    #[constructor]
    #[validate(positive_first)]
    fn new(size: u32) -> Checked {
        Checked { size }
    }

    #[validate(positive_first)]
    fn grow(&self, by: u32) -> u32 {
        self.size + by
    }
}
