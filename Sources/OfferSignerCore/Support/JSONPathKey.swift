/// A step of a path into a JSON document: an object's key or an array's index, as a coding
/// key, so that `DecodingErrorText` names the place (`eligibility.storefronts[2]`).
struct JSONPathKey: CodingKey, Equatable {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}
