import Foundation

/// An RFC 9457 problem document as the service writes it, with the members the client reads.
struct ProblemDocument: Decodable {
    let code: String?
    let detail: String?
    let title: String?
    let reasons: [EligibilityReason]?
    let errors: [String]?
    /// An answer about an experiment's arm names the experiment and the arm.
    let experimentId: String?
    let armId: String?

    /// `body` decoded, or `nil` when it is not a problem document.
    static func decode(_ body: Data) -> ProblemDocument? {
        try? JSONDecoder().decode(ProblemDocument.self, from: body)
    }

    /// The detail, with every fault of an invalid rule when the service listed them.
    var fullDetail: String {
        let text = detail ?? title ?? ""
        guard let errors, !errors.isEmpty else { return text }
        return text + ": " + errors.joined(separator: "; ")
    }
}
