/** A failure the user should read now (an API's refusal, a failed action): announced by screen readers. */
export function Alert({ message }: { message: string | undefined }) {
  return message ? (
    <p class="error" role="alert">
      {message}
    </p>
  ) : null;
}
