// The new-game form: the time zone this browser is in, while the form still offers the
// default (UTC) and nothing was sent yet (the server marks the list so: data-browser-zone).
(function () {
  "use strict";
  const select = document.querySelector("select[data-browser-zone]");
  if (!select || select.value !== "UTC") return;
  let zone = "";
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch (error) {
    return; /* no Intl: the list stays as it is */
  }
  if ([...select.options].some((option) => option.value === zone)) select.value = zone;
})();
