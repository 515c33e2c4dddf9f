//! Trimming at a sender (selective repeat and UET): every header the switches cut names
//! a lost packet that no later NAK names again, so a packet a NAK names while another
//! resend is pending is queued rather than forgotten (`FabricModel::queue_resend`).

use super::Trimming;
use crate::ids::FlowId;

impl Trimming {
    /// A NAK named `seq` of `flow` while another resend was pending.
    pub(super) fn push_resend(&mut self, flow: FlowId, seq: u32) {
        let q = &mut self.resends[flow.idx()];
        if !q.contains(&seq) {
            q.push_back(seq);
        }
    }

    /// Packets of `flow` queued to resend (on a run without trimming: none).
    #[inline]
    pub(super) fn pending(&self, flow: FlowId) -> usize {
        self.resends.get(flow.idx()).map_or(0, |q| q.len())
    }

    /// The next packet of `flow` to resend, skipping those acknowledged since (below
    /// `snd_una`).
    pub(super) fn pop_resend(&mut self, flow: FlowId, snd_una: u32) -> Option<u32> {
        let q = &mut self.resends[flow.idx()];
        while let Some(s) = q.pop_front() {
            if s >= snd_una {
                return Some(s);
            }
        }
        None
    }
}
