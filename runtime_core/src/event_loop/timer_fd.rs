//! A wake at a deadline to the microsecond, for the timer heap of a runtime made with
//! `RuntimeOptions::precise_timers` (Linux): tokio's timers round a deadline up to the next
//! millisecond tick and its reactor waits in whole milliseconds, so a timer fires up to two
//! milliseconds after its deadline. A `timerfd` registered with the reactor fires at the deadline
//! itself. It is set again only when the earliest deadline changes: a `timerfd_settime` then,
//! a `read` when it fires.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::task::{Context, Poll};
use std::time::Instant;

use tokio::io::unix::AsyncFd;
use tokio::io::Interest;

pub(crate) struct TimerFd {
    fd: AsyncFd<OwnedFd>,
    /// The deadline it is set for, until it fires.
    set_for: Option<Instant>,
}

impl TimerFd {
    /// A timer registered with the current tokio runtime's reactor (which must have IO
    /// enabled), not set.
    pub(crate) fn new() -> io::Result<Self> {
        // SAFETY: `timerfd_create` takes no pointers; a non-negative result is a new
        // descriptor.
        let raw = unsafe {
            libc::timerfd_create(
                libc::CLOCK_MONOTONIC,
                libc::TFD_NONBLOCK | libc::TFD_CLOEXEC,
            )
        };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `raw` is open and owned by nothing else.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: an `OwnedFd` stays open, on the same descriptor, until it drops with the
        // `AsyncFd`.
        let fd = unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) }
            .map_err(io::Error::from)?;
        Ok(Self { fd, set_for: None })
    }

    /// Ready once `deadline` has passed; else set for it, with `cx` woken then.
    pub(crate) fn poll_until(
        &mut self,
        deadline: Instant,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<()>> {
        loop {
            let now = Instant::now();
            if deadline <= now {
                return Poll::Ready(Ok(()));
            }
            if self.set_for != Some(deadline) {
                // Relative to now: `Instant` is CLOCK_MONOTONIC too, and the time the call
                // takes only makes the wake later, never early.
                self.set(deadline - now)?;
                self.set_for = Some(deadline);
                // Setting it discards an expiration not read (it fired for a deadline the heap
                // took as due): the readiness that expiration left is stale, and is cleared
                // here rather than found out by a `read` that fails. (An expiration after the
                // set is a new edge, which the reactor reports again.)
                if let Poll::Ready(Ok(mut stale)) = self.fd.poll_read_ready(cx) {
                    stale.clear_ready();
                }
            }
            let Poll::Ready(ready) = self.fd.poll_read_ready(cx) else {
                return Poll::Pending;
            };
            let mut ready = ready?;
            let mut expirations = 0u64;
            // SAFETY: reads at most 8 bytes into `expirations`, which has 8.
            let read = unsafe {
                libc::read(
                    self.fd.as_raw_fd(),
                    (&raw mut expirations).cast(),
                    std::mem::size_of::<u64>(),
                )
            };
            // Read or not (`EAGAIN`: the readiness was stale), it has nothing more to say
            // until it next fires.
            ready.clear_ready();
            if read > 0 {
                self.set_for = None;
            }
        }
    }

    fn set(&self, after: std::time::Duration) -> io::Result<()> {
        let value = libc::itimerspec {
            it_interval: libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            },
            it_value: libc::timespec {
                tv_sec: after.as_secs().min(i64::MAX as u64) as libc::time_t,
                // At least 1 ns: an all-zero value would disarm it.
                tv_nsec: after.subsec_nanos().max(u32::from(after.as_secs() == 0)) as _,
            },
        };
        // SAFETY: `value` is a valid itimerspec; the old value is not asked for (null).
        let set =
            unsafe { libc::timerfd_settime(self.fd.as_raw_fd(), 0, &value, std::ptr::null_mut()) };
        if set < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}
