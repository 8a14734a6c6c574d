export {
  type ReceivedWebhook,
  type ReceiverBehaviour,
  startWebhookReceiver,
  type WebhookReceiver,
} from "./webhook-receiver.js";
