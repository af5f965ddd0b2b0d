import Foundation
import OfferSignerApplication
import OfferSignerService

/// `offer-signer dev-setup`: the development keys file, tokens and demo offer of `make run`.
enum DevSetupCommand {
    static func run(_ arguments: [String]) -> Int32 {
        do {
            let options = try CommandLineOptions(arguments, allowed: ["--dir", "--database", "--listen"], switches: ["--pkcs11"])
            let setup = DevelopmentSetup(folder: options["--dir"] ?? "var/dev",
                                         database: options["--database"] ?? "var/offer-signer.sqlite",
                                         pkcs11: options["--pkcs11"] == "true")
            print(try setup.run(listen: options["--listen"] ?? "127.0.0.1:8080"), terminator: "")
            return 0
        } catch let error as SettingsError {
            printError(error.description)
            return 2
        } catch {
            printError("dev-setup failed: \(error)")
            return 1
        }
    }
}
