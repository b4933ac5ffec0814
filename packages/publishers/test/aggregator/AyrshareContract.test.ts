import { publisherContract } from "../kit/publisherContract.js"
import { ayrshareContractSetup } from "./contractSetup.js"

const noRefresh = { noTokenRefresh: "Ayrshare's API key and Profile-Key do not expire; there is no token to refresh" }

publisherContract("Instagram through Ayrshare (route aggregator)", ayrshareContractSetup("aggregator"), noRefresh)
publisherContract("Instagram through Ayrshare (route aggregator_login)", ayrshareContractSetup("aggregator_login"), noRefresh)
