print("offer-signer")
