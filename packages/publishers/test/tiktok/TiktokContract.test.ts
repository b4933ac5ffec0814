import { publisherContract } from "../kit/publisherContract.js"
import { tiktokContractSetup } from "./contractSetup.js"

publisherContract("TikTok's direct route", tiktokContractSetup)
