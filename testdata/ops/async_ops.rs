// Async ops: deno_ops' `op2/test_cases/async/` in opwire's spelling, and the shapes the event
// loop tests use. Read by the expansion snapshots and `include!`d by runtime_core's `async_ops`
// test.

/// `async_void.rs`.
#[op]
pub async fn op_async() {}

/// `async_arg_return.rs`.
#[op]
pub async fn op_async_arg_return(x: i32) -> i32 {
    x
}

/// `async_arg_return_result.rs`: `Err` rejects.
#[op]
pub async fn op_async_result(x: i32) -> std::io::Result<i32> {
    if x < 0 {
        return Err(std::io::Error::new(std::io::ErrorKind::NotFound, "no such x"));
    }
    Ok(x)
}

/// `async_lazy.rs`.
#[op(async(lazy))]
pub async fn op_async_lazy() -> std::io::Result<i32> {
    Ok(0)
}

/// `async_deferred.rs`.
#[op(async(deferred))]
pub async fn op_async_deferred() -> std::io::Result<i32> {
    Ok(0)
}

/// `async_opstate.rs`: the state, borrowed between awaits only.
#[op]
pub async fn op_async_opstate(state: Rc<RefCell<OpState>>) -> std::io::Result<i32> {
    tokio::task::yield_now().await;
    let value = *state.borrow().borrow::<i32>();
    tokio::task::yield_now().await;
    Ok(value)
}

/// `async_precise_capture.rs`: a `fn` returning a future.
#[op]
#[allow(clippy::manual_async_fn)] // the form under test
pub fn op_async_impl_use(x: i32) -> impl Future<Output = std::io::Result<i32>> + 'static {
    async move { Ok(x) }
}

/// `async_result_impl.rs`: the call itself may fail (throws), then the future.
#[op]
pub fn op_async_result_impl(x: i32) -> Result<impl Future<Output = std::io::Result<i32>>, OpError> {
    if x < 0 {
        return Err(OpError::range_error("x must not be negative"));
    }
    Ok(async move { Ok(x) })
}

/// `async_result_smi.rs`.
#[op]
#[smi]
pub async fn op_async_smi(#[smi] rid: ResourceId) -> std::io::Result<ResourceId> {
    Ok(rid)
}

/// `async_jsbuffer.rs`: a kept buffer, returned over the same memory.
#[op]
#[buffer]
pub async fn op_async_v8_buffer(#[buffer] buf: JsBuffer) -> JsBuffer {
    buf
}

/// Sleeps on tokio's timer, then answers: completion order, not call order, settles.
#[op]
pub async fn op_sleep_echo(ms: u32, #[string] tag: String) -> String {
    tokio::time::sleep(std::time::Duration::from_millis(u64::from(ms))).await;
    tag
}

/// Waits for one yield of the executor.
#[op]
pub async fn op_yield() {
    tokio::task::yield_now().await;
}

/// Panics after a yield: rejects with the op's name.
#[op]
pub async fn op_async_panic() {
    tokio::task::yield_now().await;
    panic!("async boom");
}

/// Never finishes; counts its drops.
#[op]
pub async fn op_forever() {
    let _guard = DropCounter;
    std::future::pending::<()>().await;
}

/// A `String` and a BigInt, through the loop.
#[op]
#[bigint]
pub async fn op_async_len(#[string] s: String) -> u64 {
    tokio::task::yield_now().await;
    s.len() as u64
}

/// Eager and returning nothing, so it has a fast path: `Err` rejects on either path.
#[op]
pub async fn op_async_check(x: i32) -> Result<(), OpError> {
    if x < 0 {
        return Err(OpError::range_error("x must not be negative"));
    }
    Ok(())
}

/// Panics during its first poll, inside the call: rejects on either path.
#[op]
pub async fn op_async_panic_now(x: i32) {
    assert!(x <= 0, "boom at once");
}

/// Reads the state in its call and again when first polled (during the call, deferred): on
/// either path the call's borrow is gone by then.
#[op(async(deferred))]
#[allow(clippy::manual_async_fn)] // the form under test
pub fn op_async_state_twice(
    state: &mut OpState,
    rc: Rc<RefCell<OpState>>,
) -> impl Future<Output = i32> + 'static {
    let first = *state.borrow::<i32>();
    async move { first + *rc.borrow().borrow::<i32>() }
}
