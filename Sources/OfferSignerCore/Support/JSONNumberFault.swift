import Foundation

/// Names the field of a number that `JSONDecoder` could not fit in the field's type.
/// Foundation reports a number too large for an integer field, or a fraction where an integer
/// belongs, as "not valid JSON" with no coding path, so the refusal would not say which field
/// is at fault. This finds it: it puts 0 in place of the document's numbers one after another
/// until the decoding no longer fails that way; the number replaced last is the culprit.
enum JSONNumberFault {
    /// `error`, a failure of `decode` on `data`, made to name its field when it is Foundation's
    /// path-less complaint about a valid document; otherwise `error` itself.
    static func named(_ error: any Error, in data: Data, decode: (Data) throws -> Void) -> any Error {
        guard isPathless(error), var document = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            return error
        }
        var numbers: [[JSONPathKey]] = []
        collectNumbers(document, at: [], into: &numbers)
        for path in numbers {
            let original = value(in: document, at: path[...])
            document = replacing(document, at: path[...], with: NSNumber(value: 0))
            guard let changed = try? JSONSerialization.data(withJSONObject: document, options: [.fragmentsAllowed]) else { return error }
            do {
                try decode(changed)
            } catch let failure where isPathless(failure) {
                continue
            } catch {}
            return DecodingError.dataCorrupted(.init(
                codingPath: path, debugDescription: "\(original.map { "\($0)" } ?? "the number") is out of range for this field"))
        }
        return error
    }

    private static func isPathless(_ error: any Error) -> Bool {
        guard case DecodingError.dataCorrupted(let context) = error else { return false }
        return context.codingPath.isEmpty
    }

    private static func isNumber(_ value: Any) -> Bool {
        value is NSNumber && !(value is Bool)
    }

    private static func collectNumbers(_ value: Any, at path: [JSONPathKey], into numbers: inout [[JSONPathKey]]) {
        if let object = value as? [String: Any] {
            for key in object.keys.sorted() { collectNumbers(object[key]!, at: path + [JSONPathKey(stringValue: key)], into: &numbers) }
        } else if let array = value as? [Any] {
            for (index, element) in array.enumerated() { collectNumbers(element, at: path + [JSONPathKey(intValue: index)], into: &numbers) }
        } else if isNumber(value), !path.isEmpty {
            numbers.append(path)
        }
    }

    private static func value(in document: Any, at path: ArraySlice<JSONPathKey>) -> Any? {
        guard let step = path.first else { return document }
        if let index = step.intValue {
            guard let array = document as? [Any], array.indices.contains(index) else { return nil }
            return value(in: array[index], at: path.dropFirst())
        }
        guard let object = document as? [String: Any], let next = object[step.stringValue] else { return nil }
        return value(in: next, at: path.dropFirst())
    }

    private static func replacing(_ document: Any, at path: ArraySlice<JSONPathKey>, with replacement: Any) -> Any {
        guard let step = path.first else { return replacement }
        if let index = step.intValue, var array = document as? [Any], array.indices.contains(index) {
            array[index] = replacing(array[index], at: path.dropFirst(), with: replacement)
            return array
        }
        if var object = document as? [String: Any], let next = object[step.stringValue] {
            object[step.stringValue] = replacing(next, at: path.dropFirst(), with: replacement)
            return object
        }
        return document
    }
}
