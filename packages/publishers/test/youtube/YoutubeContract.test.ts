import { publisherContract } from "../kit/publisherContract.js"
import { youtubeContractSetup } from "./contractSetup.js"

publisherContract("YouTube's direct route", youtubeContractSetup)
