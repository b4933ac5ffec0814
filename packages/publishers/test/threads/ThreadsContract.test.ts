import { publisherContract } from "../kit/publisherContract.js"
import { threadsContractSetup } from "./contractSetup.js"

publisherContract("Threads' direct route", threadsContractSetup)
