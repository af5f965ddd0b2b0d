import Foundation
import OfferSignerTestSupport
import Testing

/// The Prometheus rules of deploy/prometheus held to the service: every metric they name is
/// one a running `serve` exposes, every alert and recorded series has its promtool unit test
/// (run by `make test`), and every alert its section in the README.
@Suite("Alert rules (deploy/prometheus)")
struct AlertRuleTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let folder = repository.appendingPathComponent("deploy/prometheus")

    /// The webhook metrics of issue 37 (the delivery worker's), which the rules must watch.
    /// Built in parallel with the rules: while no file of `Sources/` names one of them (the
    /// webhooks are not in this tree), a running service need not expose them; once the
    /// sources name any, all three must be on `/metrics`, like every other name.
    static let webhooks: Set<String> = [
        "offer_signer_webhook_deliveries_total", "offer_signer_webhook_dead_letters_total",
        "offer_signer_webhook_oldest_undelivered_seconds",
    ]

    static func read(_ path: String) throws -> String {
        try String(contentsOf: repository.appendingPathComponent(path), encoding: .utf8)
    }

    /// The rule files, then their unit tests.
    static func ruleFiles() throws -> [String: String] {
        var files = ["deploy/prometheus/alerts.yaml": try read("deploy/prometheus/alerts.yaml"),
                     "deploy/prometheus/recording.yaml": try read("deploy/prometheus/recording.yaml")]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("tests").path) where name.hasSuffix(".yaml") {
            files["deploy/prometheus/tests/\(name)"] = try read("deploy/prometheus/tests/\(name)")
        }
        return files
    }

    /// Every `offer_signer_…` name in `text` (recorded series, `offer_signer:…`, are not metrics the service exposes).
    static func metricNames(in text: String) throws -> Set<String> {
        let pattern = try NSRegularExpression(pattern: "(?<![A-Za-z0-9_:])offer_signer_[a-z0-9_]+")
        let whole = NSRange(text.startIndex..., in: text)
        return Set(pattern.matches(in: text, range: whole).compactMap { Range($0.range, in: text).map { String(text[$0]) } })
    }

    /// The value of each `key: value` (or `- key: value`) line of `text`, unquoted, in order.
    static func values(of key: String, in text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            var trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("- ") { trimmed.removeFirst(2) }
            guard trimmed.hasPrefix("\(key): ") else { return nil }
            return String(trimmed.dropFirst(key.count + 2)).trimmingCharacters(in: CharacterSet(charactersIn: "\"' "))
        }
    }

    @Test("every metric the rules and their tests name is one a running serve exposes (# TYPE on /metrics; a histogram's _bucket, _count, _sum)",
          .enabled(if: OfferSignerBinary.testable))
    func namesExposed() throws {
        let environment = try TestEnvironment()
        let serve = try ServeProcess(environment: [
            "OFFER_SIGNER_KEYS": environment.keysPath,
            "OFFER_SIGNER_DATABASE": environment.folder.appendingPathComponent("serve.sqlite").path,
        ], logFolder: environment.folder)
        let scraped = TestHTTP.send(port: serve.port, "GET", "/metrics")
        #expect(scraped.status == 200)
        var exposed: Set<String> = []
        for line in scraped.body.split(separator: "\n") where line.hasPrefix("# TYPE ") {
            let parts = line.split(separator: " ")
            guard parts.count == 4 else { continue }
            let name = String(parts[2])
            exposed.insert(name)
            if parts[3] == "histogram" { exposed.formUnion(["\(name)_bucket", "\(name)_count", "\(name)_sum"]) }
        }
        #expect(exposed.contains("offer_signer_http_requests_total"), "\(scraped.body)")
        let webhooksBuilt = try Self.webhooksInSources()
        var named: Set<String> = []
        for (path, text) in try Self.ruleFiles() {
            let names = try Self.metricNames(in: text)
            named.formUnion(names)
            let unknown = names.subtracting(exposed).subtracting(webhooksBuilt ? [] : Self.webhooks)
            #expect(unknown.isEmpty, "\(path) names metrics serve does not expose: \(unknown.sorted())")
        }
        #expect(named.isSuperset(of: Self.webhooks), "the rules no longer watch \(Self.webhooks.subtracting(named).sorted())")
        if webhooksBuilt {
            #expect(exposed.isSuperset(of: Self.webhooks), "the sources have webhooks but /metrics lacks \(Self.webhooks.subtracting(exposed).sorted())")
        }
    }

    /// Whether a Swift file of `Sources/` names one of the webhook metrics.
    static func webhooksInSources() throws -> Bool {
        let sources = repository.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        #expect(files.count > 50, "Sources/ not found at \(sources.path)")
        return try files.contains { file in
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            return webhooks.contains { text.contains($0) }
        }
    }

    @Test("every alert (each of its severities) has a promtool test that fires it and one where it must not, its README section and runbook_url; every recorded series a test of its value")
    func everyRuleTested() throws {
        let files = try Self.ruleFiles()
        let alerts = try #require(files["deploy/prometheus/alerts.yaml"])
        let recording = try #require(files["deploy/prometheus/recording.yaml"])
        let tests = files.filter { $0.key.hasPrefix("deploy/prometheus/tests/") }.values.joined(separator: "\n")
        let readme = try Self.read("README.md")

        // The rules of alerts.yaml, each as (name, severity).
        var rules: [(name: String, severity: String)] = []
        for block in alerts.components(separatedBy: "- alert: ").dropFirst() {
            let name = String(block.prefix { !$0.isWhitespace })
            let severity = try #require(Self.values(of: "severity", in: block).first, "\(name) has no severity")
            rules.append((name, severity))
            #expect(["critical", "warning"].contains(severity), "\(name): severity \(severity)")
            #expect(Self.values(of: "runbook_url", in: block).first == "README.md#\(name.lowercased())", "\(name)'s runbook_url")
            #expect(Self.values(of: "summary", in: block).count == 1, "\(name) has no summary")
        }
        #expect(rules.count >= 13)

        // The tests' alert checks: the alert's name and what is expected (empty, or the alerts with their labels).
        let checks = tests.components(separatedBy: "alertname: ").dropFirst().map { chunk -> (name: String, body: String) in
            let name = String(chunk.prefix { !$0.isWhitespace })
            let body = chunk.components(separatedBy: "- eval_time:").first ?? ""
            return (name, body)
        }
        for rule in rules {
            let ofRule = checks.filter { $0.name == rule.name }
            #expect(ofRule.contains { $0.body.contains("exp_alerts: []") }, "\(rule.name): no test where it must not fire")
            #expect(ofRule.contains { $0.body.contains("- exp_labels:") && $0.body.contains("severity: \(rule.severity)") },
                    "\(rule.name): no test that fires it with severity \(rule.severity)")
            let documented = readme.contains("\n#### \(rule.name)\n")
            #expect(documented, "README has no section '#### \(rule.name)'")
        }
        for name in Self.values(of: "record", in: recording) {
            #expect(Self.values(of: "expr", in: tests).contains { $0.contains(name) }, "recorded series \(name) has no promql_expr_test")
        }
    }
}
