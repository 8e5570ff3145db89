//! Numbers from records: Elo with error bars and LOS ([`rating`]), the
//! pentanomial SPRT ([`sprt`]), standings ([`summary`]), their text tables
//! ([`tables`]) and the results files ([`results`]).

pub mod rating;
pub mod results;
pub mod sprt;
pub mod summary;
pub mod tables;
