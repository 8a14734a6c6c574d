// What the page says outside the steps: the alert box and the screen-reader announcements.
import { ui } from "./elements.js";

export function announce(text: string): void {
  // Clearing first makes a repeated message ("Address copied.") be read again.
  ui.announce.textContent = "";
  setTimeout(() => {
    ui.announce.textContent = text;
  }, 50);
}

export function showAlert(text: string): void {
  ui.alert.textContent = text;
  ui.alert.hidden = false;
}

export function hideAlert(): void {
  if (!ui.alert.hidden) ui.alert.hidden = true;
}
