//! rsocket.
