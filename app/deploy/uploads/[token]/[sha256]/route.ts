import { getContext } from "@/lib/context";
import { json, routes } from "@/lib/http";
import { receiveUpload } from "@/lib/deploy/uploads";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ token: string; sha256: string }>({
  // PUT /deploy/uploads/{token}/{sha256} – the raw bytes of one content, checked and stored
  PUT: async (req, { token, sha256 }) => json(await receiveUpload(await getContext(), req, token, sha256), 201),
});
