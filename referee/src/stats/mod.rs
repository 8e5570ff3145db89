//! Numbers from records: Elo with error bars and LOS ([`rating`]), ratings
//! fitted to every game ([`fit`]), the pentanomial SPRT ([`sprt`]),
//! standings ([`summary`]) and a Swiss's standings ([`swiss`]). How they
//! are shown is [`crate::report`]'s.

pub(crate) mod fit;
pub(crate) mod rating;
pub(crate) mod sprt;
pub(crate) mod summary;
pub(crate) mod swiss;
