/** Tickflow mark: a clock tick inside a flow arrow. Decorative (aria-hidden). */
export function Logo({ className }: { className?: string }) {
  return (
    <svg viewBox="0 0 24 24" aria-hidden className={className} fill="none">
      <rect width="24" height="24" rx="6" className="fill-indigo-600" />
      <path d="M12 6.5v5.5l3.5 2" stroke="white" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" />
      <path d="M5.5 15.5a7 7 0 1 0 1.2-8.3" stroke="white" strokeWidth="1.6" strokeLinecap="round" opacity=".7" />
    </svg>
  );
}
