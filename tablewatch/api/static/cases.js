// The case forms of the round page and the case page (docs/api.md, "Casework pages").
// Each <form class="case-action" data-finding="ID" data-action="claim|release|note|
// bookmark|link|close|reopen"> is sent as JSON to POST /api/v1/cases/{ID}/{action} with the
// session cookie (same origin): a cross-site form cannot send application/json. The
// server decides and records who acted (the session's holder); an answer other than 200
// is shown in the form, as text, and the page is reloaded on success.
"use strict";
(function () {
  const MONEY = /^\$?([0-9]{1,11})(?:\.([0-9]{1,2}))?$/;

  // "12.50" -> 1250 (integer cents); null when it is not dollars and cents
  function cents(text) {
    const match = MONEY.exec(text.trim());
    if (match === null) return null;
    return Number(match[1]) * 100 + Number((match[2] || "0").padEnd(2, "0"));
  }

  function bodyOf(form) {
    const body = {};
    for (const field of form.elements) {
      if (!field.name || field.disabled) continue;
      const value = field.value;
      if (field.dataset.money !== undefined) {
        const amount = value.trim() === "" ? 0 : cents(value);
        if (amount === null) {
          throw new Error(field.name + ": " + JSON.stringify(value) +
                          " is not an amount in dollars and cents, like 12.50");
        }
        body[field.dataset.money] = amount;
      } else if (field.dataset.list !== undefined) {
        body[field.name] = value.split(/[\s,]+/).filter((id) => id !== "");
      } else if (value.trim() === "" && field.dataset.optional !== undefined) {
        continue;
      } else {
        body[field.name] = value;
      }
    }
    return body;
  }

  function reasonOf(status, answer) {
    const detail = answer && answer.detail !== undefined ? answer.detail : answer;
    if (Array.isArray(detail)) {
      return detail.map((d) => (d.loc || []).join(".") + ": " + (d.msg || "")).join("; ");
    }
    return typeof detail === "string" ? detail : "the server answered " + status;
  }

  function show(form, text) {
    const place = form.querySelector(".case-error");
    place.textContent = text; // text, never HTML
    place.hidden = text === "";
  }

  async function send(form) {
    let body;
    try {
      body = bodyOf(form);
    } catch (error) {
      show(form, error.message);
      return;
    }
    const finding = form.dataset.finding;
    const path = "/api/v1/cases/" + encodeURIComponent(finding) + "/" +
                 encodeURIComponent(form.dataset.action);
    show(form, "");
    for (const button of form.querySelectorAll("button")) button.disabled = true;
    try {
      const response = await fetch(path, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "Accept": "application/json" },
        body: JSON.stringify(body),
      });
      if (response.ok) {
        window.location.reload();
        return;
      }
      let answer = null;
      try {
        answer = await response.json();
      } catch (error) {
        answer = null;
      }
      let text = reasonOf(response.status, answer);
      if (response.status === 401) text += " (sign in at /login)";
      show(form, response.status + ": " + text);
    } catch (error) {
      show(form, "the server cannot be reached: " + error.message);
    } finally {
      for (const button of form.querySelectorAll("button")) button.disabled = false;
    }
  }

  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.classList.contains("case-action")) return;
    event.preventDefault();
    send(form);
  });
})();
