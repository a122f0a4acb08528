//! Generation failures: which stage failed, its failure kind, and the stages that could not run
//! because of it. A failed generation publishes nothing.

use std::fmt;

/// The failure kinds of generation (`procedural-recipes.txt`, "Constraints and failure"), defined
/// here for the executor and every kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FailureKind {
    /// A parameter, input or recipe is invalid.
    InvalidInput,
    /// The request needs a profile (address schema, numerical profile) that is not supported.
    UnsupportedProfile,
    /// A capacity ceiling would be exceeded.
    ExhaustedCapacity,
    /// Memory could not be reserved.
    OutOfMemory,
    /// The result breaks a hard constraint (e.g. a disconnected pedestrian space).
    UnmetConstraints,
    /// A bounded search or sampler ran out of attempts.
    SearchExhaustion,
    /// A stage this one depends on failed.
    DependencyFailure,
    /// The request was cancelled.
    Cancellation,
    /// A newer request superseded this one.
    StaleRequest,
}

impl FailureKind {
    /// The kind's stable name.
    pub const fn name(self) -> &'static str {
        match self {
            FailureKind::InvalidInput => "invalid-input",
            FailureKind::UnsupportedProfile => "unsupported-profile",
            FailureKind::ExhaustedCapacity => "exhausted-capacity",
            FailureKind::OutOfMemory => "out-of-memory",
            FailureKind::UnmetConstraints => "unmet-constraints",
            FailureKind::SearchExhaustion => "search-exhaustion",
            FailureKind::DependencyFailure => "dependency-failure",
            FailureKind::Cancellation => "cancellation",
            FailureKind::StaleRequest => "stale-request",
        }
    }
}

/// One stage that did not produce its product.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StageFailure {
    /// The stage (`None` for failures of the whole request, such as cancellation before any stage).
    pub stage: Option<u32>,
    /// The kind of failure.
    pub kind: FailureKind,
    /// The parameter or port at fault, if one is.
    pub field: Option<String>,
    /// What went wrong.
    pub message: String,
}

/// A generation that failed. The first failure is the cause; further failures of the same depth
/// follow, then one [`FailureKind::DependencyFailure`] per stage that depended on a failed one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenerateError {
    /// Every failure, cause first (never empty).
    pub failures: Vec<StageFailure>,
}

impl GenerateError {
    /// A failure of the whole request.
    pub fn request(kind: FailureKind, message: impl Into<String>) -> GenerateError {
        GenerateError {
            failures: vec![StageFailure {
                stage: None,
                kind,
                field: None,
                message: message.into(),
            }],
        }
    }

    /// The cause.
    pub fn cause(&self) -> Option<&StageFailure> {
        self.failures.first()
    }

    /// The cause's kind.
    pub fn kind(&self) -> FailureKind {
        self.cause().map_or(FailureKind::InvalidInput, |f| f.kind)
    }

    /// The stage that caused the failure, if a stage did.
    pub fn stage(&self) -> Option<u32> {
        self.cause().and_then(|f| f.stage)
    }
}

impl fmt::Display for StageFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.stage {
            Some(stage) => write!(f, "stage {stage}: ")?,
            None => f.write_str("request: ")?,
        }
        write!(f, "{}", self.kind.name())?;
        if let Some(field) = &self.field {
            write!(f, " (at `{field}`)")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl fmt::Display for GenerateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.cause() {
            Some(cause) => write!(f, "generation failed: {cause}")?,
            None => f.write_str("generation failed")?,
        }
        let dependents: Vec<String> = self
            .failures
            .iter()
            .filter(|failure| failure.kind == FailureKind::DependencyFailure)
            .filter_map(|failure| failure.stage.map(|s| s.to_string()))
            .collect();
        if !dependents.is_empty() {
            write!(f, "; not run: stages {}", dependents.join(", "))?;
        }
        Ok(())
    }
}

impl std::error::Error for GenerateError {}
