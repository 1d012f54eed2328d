// Tailwind CSS 4 runs as a single PostCSS plugin; it scans the project for class names itself.
export default {
  plugins: {
    '@tailwindcss/postcss': {},
  },
};
