import Foundation

/// Short, specific sentences for JSON decoding errors, naming the field at fault: the one
/// wording of request bodies, configuration files and App Store payloads.
public enum DecodingErrorText {
    /// What is wrong with the JSON `subject` (e.g. "the body", "the payload").
    public static func describe(_ error: any Error, subject: String = "the body") -> String {
        guard let error = error as? DecodingError else {
            return "\(subject) is not valid JSON"
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath, subject)) must be \(typeName(type))"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath, subject)) must be \(typeName(type)), not null"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key], subject)) is required"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "\(subject) is not valid JSON" }
            return "\(path(context.codingPath, subject)): \(context.debugDescription)"
        @unknown default:
            return "\(subject) does not have the expected shape"
        }
    }

    private static func path(_ keys: [any CodingKey], _ subject: String) -> String {
        let text = keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return text.isEmpty ? subject : "'" + String(text.drop { $0 == "." }) + "'"
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type: "an integer"
        case is [String].Type: "an array of strings"
        default: "of the right type"
        }
    }
}
