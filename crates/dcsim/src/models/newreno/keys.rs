//! Scenario keys of `type = "newreno"` and the checks of its parameters.

use super::NewRenoParams;
use crate::keys::kind;

crate::params! {
    /// `type = "newreno"`.
    pub struct NewRenoKeys => NewRenoParams {}
    /// initial window in MSS (RFC 6928)
    init_cwnd: kind::Count, at_least(1.0);
}
