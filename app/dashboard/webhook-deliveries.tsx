import { dateTime } from "../_components/format";
import { Table } from "./table";

export interface DeliveryView {
  event_id: string;
  type: string;
  status_code: number | null;
  error: string | null;
  attempt: number;
  created_at: string;
}

/** A webhook's latest delivery attempts: when, which event, which attempt, and what the receiver answered. */
export function WebhookDeliveries({
  url,
  deliveries,
  recent,
}: {
  url: string;
  deliveries: DeliveryView[];
  recent: number;
}) {
  if (deliveries.length === 0) return <p className="muted">No deliveries yet.</p>;
  // Long ids and errors wrap, so the table never scrolls sideways (nothing in it takes focus).
  return (
    <Table
      className="stack"
      style={{ overflowWrap: "anywhere" }}
      columns={["Time", "Event", "Attempt", "Result"]}
      caption={`Latest ${recent} delivery attempts to ${url}`}
    >
      {deliveries.map((d) => (
        <tr key={`${d.event_id}-${d.attempt}`}>
          <td className="primary">
            <time dateTime={d.created_at}>{dateTime(d.created_at)}</time>
          </td>
          <td data-label="Event">
            <code>{d.type}</code> <span className="muted">{d.event_id}</span>
          </td>
          <td data-label="Attempt">{d.attempt}</td>
          <td data-label="Result">{d.error === null ? `delivered (${d.status_code})` : d.error}</td>
        </tr>
      ))}
    </Table>
  );
}
