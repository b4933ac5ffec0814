import { publisherContract } from "../kit/publisherContract.js"
import { instagramContractSetup } from "./contractSetup.js"

publisherContract("Instagram Login's direct route", instagramContractSetup("instagram"))
publisherContract("Instagram's Facebook Login route", instagramContractSetup("facebook"))
