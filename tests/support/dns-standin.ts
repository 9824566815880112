import dns2 from "dns2";

// A local DNS server on loopback (the dns2 package) whose TXT records the test sets: the app
// resolves through it with DNS_SERVERS=127.0.0.1:<port>. Names without records answer NXDOMAIN.

export interface DnsStandin {
  /** The value of DNS_SERVERS. */
  servers: string;
  /** Sets the TXT values of a name (replacing any); an empty list removes the name. */
  setTxt(name: string, values: string[]): void;
  /** Every question asked, as "TYPE name". */
  queries: string[];
  close(): Promise<void>;
}

export async function startDnsStandin(): Promise<DnsStandin> {
  const txt = new Map<string, string[]>();
  const queries: string[] = [];
  const { Packet } = dns2;
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      if (!question) return void send(response);
      const name = question.name.toLowerCase().replace(/\.$/, "");
      const type = question.type === Packet.TYPE.TXT ? "TXT" : String(question.type);
      queries.push(`${type} ${name}`);
      const values = txt.get(name);
      if (!values) {
        response.header.rcode = Packet.RCODE.NXDOMAIN;
      } else if (question.type === Packet.TYPE.TXT) {
        // The packet encoder takes plain records (the declared Resource type asks for methods it does not use).
        for (const data of values)
          response.answers.push({
            name: question.name,
            type: Packet.TYPE.TXT,
            class: Packet.CLASS.IN,
            ttl: 1,
            data,
          } as unknown as (typeof response.answers)[number]);
      }
      void send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: "127.0.0.1" } });
  const port = addresses.udp?.port;
  if (!port) throw new Error("the DNS stand-in did not listen");
  return {
    servers: `127.0.0.1:${port}`,
    setTxt(name, values) {
      const key = name.toLowerCase();
      if (values.length === 0) txt.delete(key);
      else txt.set(key, values);
    },
    queries,
    close: () => server.close(),
  };
}
