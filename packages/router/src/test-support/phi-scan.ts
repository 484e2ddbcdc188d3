// The tests' PHI oracle: a plain search for each PHI value in text the router produced, sharing
// nothing with the router's redaction.
//
// A value of digits only (a date of birth, CCYYMMDD) is found only where no digit touches it on
// either side: a date of birth is a number of its own, and an 8-digit run inside a longer one
// is a coincidence, not a leak — a virtual timestamp such as 2617721.9200310153 holds 20031015
// in its fraction (the one-off failure of the router property, FC_SEED=2619619808). Anything
// else (cardholder ids and names carry their own prefixes) is found anywhere.
const DIGITS = /^[0-9]+$/;

/** Whether `value` occurs in `text`. */
export function containsPhi(text: string, value: string): boolean {
  if (!DIGITS.test(value)) return text.includes(value);
  for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + 1)) {
    const before = text.charCodeAt(at - 1);
    const after = text.charCodeAt(at + value.length);
    if (!isDigit(before) && !isDigit(after)) return true;
  }
  return false;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57; // NaN (outside the text) is not a digit
}
