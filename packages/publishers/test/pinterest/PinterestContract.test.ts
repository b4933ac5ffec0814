import { publisherContract } from "../kit/publisherContract.js"
import { pinterestContractSetup } from "./contractSetup.js"

publisherContract("Pinterest's direct route", pinterestContractSetup)
