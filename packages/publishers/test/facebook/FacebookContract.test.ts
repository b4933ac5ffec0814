import { publisherContract } from "../kit/publisherContract.js"
import { facebookContractSetup } from "./contractSetup.js"

publisherContract("Facebook Pages' direct route", facebookContractSetup)
