//! Scenario keys of the switch buffer, `[switch.buffer]` (`type = "shared"` or
//! `"static"`), whose thresholds PFC pauses at (`net/mmu.rs`, pfc.md 1.4), and the
//! checks of their values; the checks against the frame size and the headroom are
//! `scenario::validate`'s, which knows the links.

use crate::error::{Error, Result};
use crate::keys::{at, kind, Check, KeyCtx, Keys};
use crate::plan::{BufferPlan, SwitchPlan};

/// A shared buffer's parameters (`BufferPlan::Shared`).
#[derive(Clone, Debug, PartialEq)]
pub struct SharedBuffer {
    pub total: u64,
    pub reserve: u64,
    pub alpha_shift: u32,
}

impl Default for SharedBuffer {
    /// The switch's default buffer (`SwitchPlan::default`).
    fn default() -> Self {
        match SwitchPlan::default().buffer {
            BufferPlan::Shared { total, reserve, alpha_shift } => SharedBuffer { total, reserve, alpha_shift: alpha_shift.into() },
            BufferPlan::Static { .. } => unreachable!("the default switch buffer is shared"),
        }
    }
}

crate::params! {
    /// `[switch.buffer]` with `type = "shared"` (the default): one pool per switch.
    pub struct SharedBufferKeys => SharedBuffer {
        check_more: shared_check_more,
    }
    /// the buffer of each switch; at least one frame, and more than the switch's reserves and headroom plus a frame
    size => total: kind::Cells, ANY;
    /// reserved bytes per (port, class); at most `size`
    reserve: kind::Cells, ANY;
    /// dynamic threshold alpha = 2^-alpha_shift (doubled per factor 2 a port is faster than the host links)
    alpha_shift: kind::Count, in_cc(0.0, 15.0);
}

fn shared_check_more(b: &SharedBuffer, path: &str, _: &KeyCtx) -> Result<()> {
    if b.reserve > b.total {
        return Err(Error::scenario(at(path, "reserve"), format!("exceeds the buffer size ({} B > {} B)", b.reserve, b.total)));
    }
    Ok(())
}

/// A static buffer's parameters (`BufferPlan::Static`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StaticBuffer {
    pub port_buffer: u64,
}

crate::params! {
    /// `[switch.buffer]` with `type = "static"`: a fixed buffer per ingress port.
    pub struct StaticBufferKeys => StaticBuffer {
        base: static_base,
    }
    /// the buffer of each ingress port; at least one frame; under PFC or PAUSE without an explicit `switch.pfc.xoff`, each lossless class's share must hold its headroom and a frame
    size => port_buffer: kind::Cells, ANY, shown "required";
}

fn static_base(k: &StaticBufferKeys, path: &str, _: &KeyCtx) -> Result<StaticBuffer> {
    match k.size {
        Some(_) => Ok(StaticBuffer::default()),
        None => Err(Error::scenario(at(path, "size"), "missing: a static buffer needs its size per ingress port")),
    }
}

impl SharedBufferKeys {
    /// The buffer these keys give; `scenario::validate` checks it (after the checks
    /// against the frame size, which say more).
    pub fn resolve(&self, path: &str, ctx: &KeyCtx) -> Result<BufferPlan> {
        let b = self.build(path, ctx)?;
        // The plan holds alpha_shift in 8 bits: a value beyond is out of its bounds now.
        let Ok(alpha_shift) = u8::try_from(b.alpha_shift) else {
            b.check(path, ctx)?;
            return Err(Error::scenario(at(path, "alpha_shift"), "is too large"));
        };
        Ok(BufferPlan::Shared { total: b.total, reserve: b.reserve, alpha_shift })
    }
}

impl StaticBufferKeys {
    /// The buffer these keys give; `scenario::validate` checks it.
    pub fn resolve(&self, path: &str, ctx: &KeyCtx) -> Result<BufferPlan> {
        let b = self.build(path, ctx)?;
        Ok(BufferPlan::Static { port_buffer: b.port_buffer })
    }
}

/// The checks of a buffer's own values, whoever built the plan.
pub fn check(b: &BufferPlan, path: &str) -> Result<()> {
    match *b {
        BufferPlan::Shared { total, reserve, alpha_shift } => {
            SharedBuffer { total, reserve, alpha_shift: alpha_shift.into() }.check(path, &KeyCtx::NONE)
        }
        BufferPlan::Static { port_buffer } => StaticBuffer { port_buffer }.check(path, &KeyCtx::NONE),
    }
}
