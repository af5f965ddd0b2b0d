import Foundation
@testable import OfferSignerApplication
import OfferSignerConsole
import OfferSignerHTTP
@testable import OfferSignerService
import Testing

/// The web console as the service serves it: its files, its security headers on every
/// response under /console, and files that reference only each other.
@Suite("Console: files and headers")
struct ConsoleRouteTests {
    func expectConsoleHeaders(_ response: TestResponse, _ what: String) {
        let csp = response.response.headers["Content-Security-Policy"] ?? ""
        #expect(csp.contains("default-src 'self'") && csp.contains("frame-ancestors 'none'") && csp.contains("script-src 'self'")
                    && csp.contains("style-src 'self'") && !csp.contains("unsafe"), "\(what): \(csp)")
        #expect(response.response.headers["X-Content-Type-Options"] == "nosniff", "\(what)")
        #expect(response.response.headers["Referrer-Policy"] == "no-referrer", "\(what)")
    }

    @Test("/console redirects to /console/, which serves the page; each file has its media type; all with the security headers")
    func serving() throws {
        let env = try TestEnvironment()
        let redirect = env.send("GET", "/console", role: nil)
        #expect(redirect.status == 308 && redirect.response.headers["Location"] == "/console/")
        expectConsoleHeaders(redirect, "redirect")
        let page = env.send("GET", "/console/", role: nil)
        #expect(page.status == 200 && page.response.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(page.text.contains(#"<script type="module" src="app.js"></script>"#))
        expectConsoleHeaders(page, "index")
        for (name, type) in [("app.js", "text/javascript; charset=utf-8"), ("style.css", "text/css; charset=utf-8"), ("favicon.svg", "image/svg+xml")] {
            let file = env.send("GET", "/console/\(name)", role: nil)
            #expect(file.status == 200 && file.response.headers["Content-Type"] == type, "\(name)")
            #expect(file.response.body == ConsoleAssets.all[name]?.body)
            expectConsoleHeaders(file, name)
        }
    }

    @Test("a missing file, a deeper path and a wrong method are refused, still with the console's headers")
    func refusals() throws {
        let env = try TestEnvironment()
        for (method, path, status) in [("GET", "/console/missing.js", 404), ("GET", "/console/a/b.js", 404), ("POST", "/console/app.js", 405),
                                       ("GET", "/console/..%2Fkeys.json", 404)] {
            let response = env.send(method, path, role: nil)
            #expect(response.status == status, "\(method) \(path)")
            expectConsoleHeaders(response, "\(method) \(path)")
        }
        #expect(env.send("GET", "/v1/keys", role: .client).response.headers["Content-Security-Policy"] == nil)
    }

    @Test("a file the browser holds is revalidated with its ETag: 304 without a body")
    func revalidation() throws {
        let env = try TestEnvironment()
        let first = env.send("GET", "/console/app.js", role: nil)
        let etag = try #require(first.response.headers["ETag"])
        #expect(first.response.headers["Cache-Control"] == "no-cache")
        let again = env.send("GET", "/console/app.js", role: nil, headers: ["If-None-Match": etag])
        #expect(again.status == 304 && again.response.body.isEmpty)
        #expect(env.send("GET", "/console/app.js", role: nil, headers: ["If-None-Match": "\"other\""]).status == 200)
    }

    @Test("every file the page or a module references is embedded; no file reaches outside the service or writes HTML")
    func selfContained() throws {
        let assets = ConsoleAssets.all
        #expect(assets["index.html"] != nil && assets.count >= 10)
        var referenced: Set<String> = []
        for (name, asset) in assets {
            let text = String(decoding: asset.body, as: UTF8.self)
            let patterns = [##"(?:src|href)="([^"#:]+)""##, ##"from '\./([^']+)'"##]
            for pattern in patterns {
                let regex = try NSRegularExpression(pattern: pattern)
                for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    referenced.insert(String(text[Range(match.range(at: 1), in: text)!]).replacingOccurrences(of: "./", with: ""))
                }
            }
            let outside = text.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "")
            #expect(!outside.contains("http://") && !outside.contains("https://") && !outside.contains("//cdn"), "\(name) reaches outside")
            #expect(!text.contains("innerHTML") && !text.contains("outerHTML") && !text.contains("insertAdjacentHTML")
                        && !text.contains("document.write") && !text.contains("eval("), "\(name) writes HTML or evaluates code")
            #expect(!text.contains("localStorage.setItem") && !text.contains("document.cookie"), "\(name) keeps the token beyond the tab")
        }
        let missing = referenced.subtracting(assets.keys)
        #expect(missing.isEmpty, "referenced but not embedded: \(missing.sorted())")
        let page = String(decoding: assets["index.html"]!.body, as: UTF8.self)
        #expect(!page.contains("<script>") && !page.contains("style=") && !page.contains("<style"), "no inline script or style")
    }

    @Test("GET /v1/me names the caller, its role, the configured apps and the accepted environments")
    func me() throws {
        let env = try TestEnvironment()
        for role in Role.allCases {
            let json = env.send("GET", "/v1/me", role: role).json
            #expect(json["name"] as? String == "\(role.rawValue)-key" && json["role"] as? String == role.rawValue)
            #expect(json["apps"] as? [String] == [TestEnvironment.bundleId])
            #expect(json["environments"] as? [String] == ["Production", "Sandbox"])
        }
        #expect(env.send("GET", "/v1/me", role: nil).status == 401)
        let productionOnly = try TestEnvironment(environments: ["Production"])
        #expect(productionOnly.send("GET", "/v1/me", role: .marketing).json["environments"] as? [String] == ["Production"])
    }
}
