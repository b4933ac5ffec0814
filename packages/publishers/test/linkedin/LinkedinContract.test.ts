import { publisherContract } from "../kit/publisherContract.js"
import { linkedinContractSetup } from "./contractSetup.js"

publisherContract("LinkedIn's direct route", linkedinContractSetup)
