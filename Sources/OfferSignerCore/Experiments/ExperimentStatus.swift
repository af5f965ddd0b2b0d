/// Where an experiment is in its life: `draft` → `running` (`start`) → `stopped` (`stop`); a
/// draft may be `deleted` instead (it keeps its history).
public enum ExperimentStatus: String, Codable, Hashable, Sendable {
    case draft, running, stopped, deleted
}
