//! Spec formats: Spec Kit and OpenSpec units, tasks, requirement text and ticking.
