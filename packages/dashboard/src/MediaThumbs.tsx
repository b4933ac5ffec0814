import { useEffect, useState } from "preact/hooks"
import { fileSource, get } from "./api.js"
import type { MediaInfo } from "./types.js"

/** The bytes of a stored file, same-origin with the session cookie (GET /media/content/{id}). */
const mediaContentUrl = (id: string) => `/api/v1/media/content/${encodeURIComponent(id)}`

interface Shown {
  readonly info: MediaInfo
  readonly src: string
}

// One read per file for the page's life: a post's previews show the same files once per network.
const known = new Map<string, Promise<Shown | null>>()
const shownOf = (id: string) => {
  let found = known.get(id)
  if (found === undefined) {
    found = Promise.all([get<MediaInfo>(`/api/v1/media/${encodeURIComponent(id)}`), fileSource(mediaContentUrl(id))])
      .then(([info, src]) => ({ info, src }), () => null)
    known.set(id, found)
  }
  return found
}

const Thumb = ({ shown, index }: { readonly shown: Shown | null; readonly index: number }) => {
  if (shown === null) return <li class="thumb missing">File {index + 1} cannot be shown</li>
  const { info, src } = shown
  if (info.kind === "image") {
    return (
      <li class="thumb">
        <img src={src} alt={info.alt_text ?? `Attached image ${index + 1} (no alt text)`} loading="lazy" />
      </li>
    )
  }
  if (info.kind === "video") {
    return (
      <li class="thumb">
        <video src={src} preload="metadata" controls muted aria-label={`Attached video ${index + 1}`} />
      </li>
    )
  }
  return <li class="thumb"><a href={src} target="_blank" rel="noopener">Document {index + 1} ({info.mime})</a></li>
}

/** The files of a post or an upload as pictures: thumbnails for images, a poster frame for videos. */
export const MediaThumbs = ({ ids }: { readonly ids: ReadonlyArray<string> }) => {
  const [infos, setInfos] = useState<ReadonlyArray<Shown | null> | null>(null)
  const key = ids.join(",")
  useEffect(() => {
    let live = true
    void Promise.all(ids.map(shownOf)).then((found) => live && setInfos(found))
    return () => {
      live = false
    }
  }, [key])
  if (ids.length === 0) return null
  if (infos === null) return <p class="media muted">{ids.length} media file{ids.length === 1 ? "" : "s"} attached</p>
  return (
    <ul class="thumbs" aria-label="Attached media">
      {ids.map((id, index) => <Thumb key={id} shown={infos[index] ?? null} index={index} />)}
    </ul>
  )
}
